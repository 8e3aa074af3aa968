/** The guide: the paper's shopping-cart story (Dynamo, section 4.4) in five steps with buttons. */
import type { CartView, ClusterView } from '../../shared/api.js';
import { h } from '../dom.js';

export interface GuideHandlers {
  readonly isolate: (id: string) => void;
  readonly heal: () => void;
  readonly talkTo: (id: string) => void;
  readonly toggle: (open: boolean) => void;
}

export interface GuideState {
  readonly cart: CartView | undefined;
  readonly cluster: ClusterView | undefined;
  readonly tabNode: string;
  readonly open: boolean;
  readonly openIn: readonly { readonly id: string; readonly url: string }[];
  readonly sawVersions: boolean;
}

function step(n: number, done: boolean, ...content: (HTMLElement | string | null)[]): HTMLElement {
  return h(
    'li',
    { class: `gstep${done ? ' done' : ''}` },
    h('span', { class: 'num' }, done ? '✓' : String(n)),
    h('div', null, ...content),
  );
}

export function guideView(state: GuideState, on: GuideHandlers): HTMLElement {
  const nodes = state.cluster?.nodes.map((n) => n.id) ?? [];
  const pinned = state.tabNode !== 'auto';
  const other = state.openIn.find((n) => n.id !== state.tabNode);
  const split = state.cluster?.split != null;
  const details = h(
    'details',
    { class: 'guide-inner', open: state.open },
    h(
      'summary',
      null,
      h('strong', null, 'Try the paper’s shopping cart'),
      h('span', { class: 'muted' }, ' — a split, edits on both sides, a merge that loses nothing'),
    ),
    h(
      'ol',
      { class: 'steps' },
      step(1, (state.cart?.count ?? 0) >= 2, 'Add two things to the cart.'),
      step(
        2,
        pinned,
        'Pin this tab to a node ',
        nodes.length > 0 && !pinned
          ? h('button', { class: 'btn small', onclick: () => on.talkTo(nodes[0]!) }, `talk to ${nodes[0]}`)
          : null,
        ' and open the cart in a second tab on another node ',
        other === undefined
          ? null
          : h(
              'a',
              { class: 'btn small ghost', href: other.url, target: '_blank', rel: 'noopener' },
              `open via ${other.id}`,
            ),
        '.',
      ),
      step(
        3,
        split,
        'Split the cluster so the two tabs are on different sides ',
        pinned && !split
          ? h(
              'button',
              {
                class: 'btn small',
                'data-testid': 'guide-isolate',
                onclick: () => on.isolate(state.tabNode),
              },
              `isolate ${state.tabNode}`,
            )
          : null,
        '.',
      ),
      step(4, false, 'In each tab add something different; in one of them remove an item both tabs had.'),
      step(
        5,
        state.sawVersions,
        'Heal the split ',
        split ? h('button', { class: 'btn small', onclick: () => on.heal() }, 'heal') : null,
        ' and watch: both versions appear side by side, and the merge keeps every add and the removal.',
      ),
    ),
  );
  details.addEventListener('toggle', () => on.toggle(details.open));
  return details;
}
