/**
 * The reconciliation panel: while the cart has several versions, the versions side by side, their
 * merge, and every rule that decided it; after a write resolved them, a one-line summary that
 * opens to the same view. This is the heart of the demo.
 */
import type { PastReconciliation, Reconciliation } from '../../../shared/api.js';
import { clock, h, plural } from '../../dom.js';
import { rulesView } from './rules.js';
import { versionsFlow } from './versions.js';

function body(r: Reconciliation): HTMLElement[] {
  const parts: HTMLElement[] = [versionsFlow(r), rulesView(r)];
  if (r.unionWouldResurrect.length > 0) {
    parts.push(
      h(
        'p',
        { class: 'union-note' },
        h('strong', null, 'Why not a plain union? '),
        `Merging by taking every item of every version, as the paper's cart does (§4.4: "deleted items can resurface"), would have brought back ${r.unionWouldResurrect.join(', ')}. The cart CRDT keeps the removal, because the version that removed it had seen exactly those lines.`,
      ),
    );
  }
  return parts;
}

export function liveReconciliation(r: Reconciliation, onSave: () => void): HTMLElement {
  return h(
    'div',
    { class: 'reconcile live', 'data-testid': 'reconciliation' },
    h(
      'div',
      { class: 'reconcile-head' },
      h(
        'div',
        null,
        h('h2', null, `This cart has ${plural(r.versions.length, 'version')} right now`),
        h(
          'p',
          null,
          'They were written where the cluster could not bring them together (a split, or a node that was down), so neither saw the other. Tessera kept both as ',
          h('em', null, 'siblings'),
          ' and returned them with one context; the store merged them for you with the cart resolver. Any change you make, or the button, writes the merge back with that context and the versions become one.',
        ),
      ),
      h(
        'button',
        { class: 'btn primary', 'data-testid': 'resolve', onclick: () => onSave() },
        'Keep the merge',
      ),
    ),
    body(r),
  );
}

export function pastReconciliation(
  r: PastReconciliation,
  open: boolean,
  onToggle: (open: boolean) => void,
): HTMLElement {
  const how = r.resolvedBy === 'save' ? 'by “Keep the merge”' : `by a ${r.resolvedBy}`;
  const details = h(
    'details',
    { class: 'reconcile past', 'data-testid': 'last-reconciliation', open },
    h(
      'summary',
      null,
      h('span', { class: 'ok-mark' }, '✓'),
      ` ${plural(r.versions.length, 'version')} merged into one at ${clock(r.resolvedAt)}, ${how} via ${r.via}. `,
      h('span', { class: 'muted' }, open ? 'Hide' : 'Show how'),
    ),
    body(r),
  );
  details.addEventListener('toggle', () => onToggle(details.open));
  return details;
}
