/**
 * The note under a cart's total about this tab's last write: "saved", or "saved on n0 only — 1 of
 * 3 replicas" in a warning style with why, turning into "now on all 3 replicas" once every node
 * holds it.
 */
import { h } from '../dom.js';
import type { SavedText } from '../state/saved.js';

const MARK: Readonly<Record<SavedText['kind'], string>> = { saved: '✓', minority: '!', everywhere: '✓' };

/** `compact`: the detail only as a tooltip (a split-screen half). */
export function savedNote(saved: SavedText | undefined, testid: string, compact = false): HTMLElement | null {
  if (saved === undefined) return null;
  return h(
    'div',
    {
      class: `saved-note ${saved.kind}`,
      role: 'status',
      title: saved.detail,
      'data-testid': testid,
      'data-kind': saved.kind,
    },
    h(
      'p',
      { class: 'saved-text' },
      h('span', { class: 'saved-mark', 'aria-hidden': 'true' }, MARK[saved.kind]),
      saved.text,
    ),
    compact || saved.kind === 'saved' ? null : h('p', { class: 'saved-detail' }, saved.detail),
  );
}
