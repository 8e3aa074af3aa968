/**
 * The bar above the page's sections: switch between the shop and split-screen, and "Play the
 * story" (the guide's five steps hands-free). While the story plays, the bar is its narrator: the
 * step, the sentence being read, and Stop.
 */
import { h } from '../dom.js';
import type { PageMode } from '../state/app-state.js';
import { type Narration, STORY_STEPS } from '../state/narration.js';

export interface StoryBarHandlers {
  readonly setMode: (mode: PageMode) => void;
  readonly play: () => void;
  readonly stopStory: () => void;
  readonly dismissStory: () => void;
}

function narrator(n: Narration, on: StoryBarHandlers): HTMLElement {
  const playing = n.status === 'playing';
  return h(
    'div',
    {
      class: `narrator ${n.status}`,
      'data-testid': 'narrator',
      'data-status': n.status,
      'data-step': n.step,
      role: 'status',
      'aria-live': 'polite',
    },
    h(
      'div',
      { class: 'narrator-steps', 'aria-label': `step ${n.step} of ${STORY_STEPS}` },
      Array.from({ length: STORY_STEPS }, (_, i) =>
        h(
          'span',
          {
            class: `dot${i + 1 < n.step || (i + 1 === n.step && !playing) ? ' done' : i + 1 === n.step ? ' now' : ''}`,
          },
          String(i + 1),
        ),
      ),
    ),
    h('p', { class: 'narrator-text', 'data-testid': 'narration' }, n.text),
    playing
      ? h(
          'button',
          { class: 'btn small', 'data-testid': 'story-stop', onclick: () => on.stopStory() },
          'Stop',
        )
      : h(
          'button',
          { class: 'btn small ghost', 'data-testid': 'story-close', onclick: () => on.dismissStory() },
          'Close',
        ),
  );
}

export function storyBar(
  mode: PageMode,
  narration: Narration | undefined,
  on: StoryBarHandlers,
): HTMLElement {
  if (narration !== undefined) return narrator(narration, on);
  return h(
    'div',
    { class: 'story-bar' },
    h(
      'div',
      { class: 'segmented', role: 'radiogroup', 'aria-label': 'view' },
      (
        [
          ['shop', 'Shop'],
          ['split', 'Split screen'],
        ] as const
      ).map(([id, label]) =>
        h(
          'button',
          {
            class: `seg${id === mode ? ' on' : ''}`,
            role: 'radio',
            'aria-checked': String(id === mode),
            'data-testid': `mode-${id}`,
            title:
              id === 'split'
                ? 'the same cart twice, through two nodes, side by side'
                : 'the catalog and the cart',
            onclick: () => on.setMode(id),
          },
          label,
        ),
      ),
    ),
    h(
      'button',
      {
        class: 'btn small primary',
        'data-testid': 'story-play',
        title: 'a fresh cart, the five steps hands-free, narrated',
        onclick: () => on.play(),
      },
      '▶ Play the story',
    ),
  );
}
