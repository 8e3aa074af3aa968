/**
 * The guide: the shop's two kinds of keys in one sentence each (carts always writeable; stock and
 * orders strong), then the paper's shopping-cart story (Dynamo, section 4.4) in five steps. Each
 * step is ticked from the cart's story, which the store keeps for every tab of the cart, so a step
 * done in the other tab ticks here too, and a done step stays ticked. Buttons sit under their
 * sentence.
 */
import type { CartStory, ClusterView, StepId, StoryStep } from '../../shared/api.js';
import { h } from '../dom.js';

export interface GuideHandlers {
  readonly isolate: (id: string) => void;
  readonly heal: () => void;
  readonly pick: (id: string) => void;
  /** Pins this tab to `node` (if it is on auto) before the link opens a second tab. */
  readonly openSecond: (node: string) => void;
  readonly showMerge: () => void;
  readonly toggle: (open: boolean) => void;
}

export interface GuideInput {
  readonly story: CartStory | undefined;
  readonly cluster: ClusterView | undefined;
  /** The node this tab is pinned to, or "auto". */
  readonly pinned: string;
  /** The node this tab talks to: the pinned one, or on auto the one that served it. */
  readonly here: string | undefined;
  /** A node for the second tab (never `here`), and the link that opens the cart through it. */
  readonly second: { readonly id: string; readonly url: string } | undefined;
  readonly versions: number;
  readonly open: boolean;
}

const TEXT: Readonly<Record<StepId, string>> = {
  'two-items': 'Add two things to the cart.',
  'two-tabs': 'Pin this tab to a node and open the same cart in a second tab on another node.',
  split: 'Split the cluster so that the two tabs are on different sides.',
  'both-sides': 'In each tab add something different; in one of them remove an item both tabs had.',
  merged:
    'Heal the split and watch both versions appear side by side, merged without losing an add or the removal.',
};

function actionsFor(id: StepId, done: boolean, input: GuideInput, on: GuideHandlers): (HTMLElement | null)[] {
  const split = input.cluster?.split != null;
  const steps = input.story?.steps ?? [];
  const isDone = (s: StepId): boolean => steps.some((x) => x.id === s && x.doneAt !== null);
  switch (id) {
    case 'two-items':
      return [];
    case 'two-tabs': {
      if (done) return [];
      const pin =
        input.pinned === 'auto' && input.here !== undefined
          ? h(
              'button',
              { class: 'btn small', 'data-testid': 'guide-pin', onclick: () => on.pick(input.here!) },
              `talk to ${input.here}`,
            )
          : null;
      const open =
        input.second === undefined || input.here === undefined
          ? null
          : h(
              'a',
              {
                class: 'btn small ghost',
                href: input.second.url,
                target: '_blank',
                rel: 'noopener',
                'data-testid': 'guide-open-second',
                'data-node': input.second.id,
                onclick: () => on.openSecond(input.here!),
              },
              `open a tab via ${input.second.id}`,
            );
      return [pin, open];
    }
    case 'split':
      return !done && !split && isDone('two-tabs') && input.here !== undefined
        ? [
            h(
              'button',
              { class: 'btn small', 'data-testid': 'guide-isolate', onclick: () => on.isolate(input.here!) },
              `isolate ${input.here}`,
            ),
          ]
        : [];
    case 'both-sides':
      return [];
    case 'merged':
      return [
        split
          ? h('button', { class: 'btn small', 'data-testid': 'guide-heal', onclick: () => on.heal() }, 'heal')
          : null,
        input.versions > 1
          ? h('button', { class: 'btn small ghost', onclick: () => on.showMerge() }, 'see the merge')
          : null,
      ];
  }
}

function step(n: number, s: StoryStep, input: GuideInput, on: GuideHandlers): HTMLElement {
  const done = s.doneAt !== null;
  const actions = actionsFor(s.id, done, input, on).filter((a): a is HTMLElement => a !== null);
  return h(
    'li',
    { class: `gstep${done ? ' done' : ''}`, 'data-testid': `guide-step-${n}`, 'data-done': String(done) },
    h('span', { class: 'num', 'aria-label': done ? 'done' : `step ${n}` }, done ? '✓' : String(n)),
    h(
      'div',
      { class: 'gbody' },
      h('p', null, TEXT[s.id]),
      s.detail === '' ? null : h('p', { class: 'gdetail', 'data-testid': `guide-detail-${n}` }, s.detail),
      actions.length === 0 ? null : h('div', { class: 'gactions' }, actions),
    ),
  );
}

/** The two models this shop uses, one sentence each. */
export const MODELS = {
  carts:
    'are always writeable: each is a plain key, and edits made at the same time (say on both sides of a split) are kept as sibling versions and merged, losing nothing.',
  strong:
    'are strong keys: linearizable, one version at a time, and checkout is one all-or-nothing transaction that takes the stock and writes the order, so the last one is sold only once.',
} as const;

function models(): HTMLElement {
  return h(
    'ul',
    { class: 'models', 'data-testid': 'models' },
    h('li', { 'data-model': 'carts' }, h('strong', { class: 'model-name' }, 'Carts'), ` ${MODELS.carts}`),
    h(
      'li',
      { 'data-model': 'strong' },
      h('strong', { class: 'model-name' }, 'Stock and orders'),
      ` ${MODELS.strong}`,
    ),
  );
}

const NOT_YET: readonly StoryStep[] = (Object.keys(TEXT) as StepId[]).map((id) => ({
  id,
  doneAt: null,
  detail: '',
}));

export function guideView(input: GuideInput, on: GuideHandlers): HTMLElement {
  const steps = input.story?.steps ?? NOT_YET;
  const done = steps.filter((s) => s.doneAt !== null).length;
  const details = h(
    'details',
    { class: 'guide-inner', open: input.open, 'data-testid': 'guide' },
    h(
      'summary',
      null,
      h('strong', null, 'Try the paper’s shopping cart'),
      h('span', { class: 'muted guide-sub' }, ' — a split, edits on both sides, a merge that loses nothing'),
      h('span', { class: 'guide-count', 'data-testid': 'guide-count' }, `${done}/${steps.length}`),
    ),
    models(),
    h(
      'ol',
      { class: 'steps' },
      steps.map((s, i) => step(i + 1, s, input, on)),
    ),
  );
  details.addEventListener('toggle', () => on.toggle(details.open));
  return details;
}
