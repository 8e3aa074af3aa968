/**
 * Split-screen: the same cart twice, side by side (stacked on a narrow screen), each half bound
 * to its own node, so the paper's story plays in one tab. The left half is this tab, the right half
 * a second tab on the same page.
 */
import type { CartLineView, CartView, Product, ServedBy } from '../../shared/api.js';
import { h, price } from '../dom.js';
import type { SavedText } from '../state/saved.js';
import { savedNote } from './saved-note.js';

export interface PaneHandlers {
  readonly add: (productId: string) => void;
  readonly setQuantity: (line: CartLineView, quantity: number) => void;
  readonly remove: (line: CartLineView) => void;
  readonly pick: (node: string) => void;
}

export interface PaneInput {
  readonly side: 'left' | 'right';
  readonly node: string | undefined;
  /** Nodes this half may talk to (not the other half's). */
  readonly choices: readonly string[];
  readonly cart: CartView | undefined;
  /** How this half's last write was stored. */
  readonly saved: SavedText | undefined;
}

function served(s: ServedBy | undefined): HTMLElement | null {
  if (s === undefined) return null;
  const text = s.degraded
    ? `${s.nodeId} alone (no quorum)`
    : s.fallback
      ? `${s.asked} is down · ${s.nodeId} served`
      : `served by ${s.nodeId}`;
  return h(
    'span',
    {
      class: `served${s.degraded || s.fallback ? ' trouble' : ''}`,
      title: s.note,
      'data-degraded': String(s.degraded),
    },
    h('span', { class: 'led' }),
    text,
  );
}

function line(p: string, i: CartLineView, on: PaneHandlers): HTMLElement {
  const id = (what: string): string => `${p}-${what}-${i.productId}`;
  return h(
    'li',
    { class: 'pline', 'data-product': i.productId, 'data-qty': i.quantity },
    h('span', { class: 'pline-name' }, i.name),
    h(
      'span',
      { class: 'stepper' },
      h(
        'button',
        {
          class: 'step',
          'aria-label': `one ${i.name} less`,
          'data-testid': id('dec'),
          onclick: () => on.setQuantity(i, i.quantity - 1),
        },
        '−',
      ),
      h('span', { class: 'qty' }, String(i.quantity)),
      h(
        'button',
        {
          class: 'step',
          'aria-label': `one more ${i.name}`,
          'data-testid': id('inc'),
          onclick: () => on.setQuantity(i, i.quantity + 1),
        },
        '+',
      ),
    ),
    h(
      'button',
      {
        class: 'remove',
        'aria-label': `remove ${i.name}`,
        'data-testid': id('remove'),
        onclick: () => on.remove(i),
      },
      '×',
    ),
  );
}

function pane(input: PaneInput, products: readonly Product[], on: PaneHandlers): HTMLElement {
  const p = `pane-${input.side}`;
  const { cart } = input;
  return h(
    'section',
    {
      class: `pane panel pane-${input.side}`,
      'data-testid': p,
      'data-node': input.node ?? '',
      'aria-label': `${input.side} half`,
    },
    h(
      'div',
      { class: 'pane-head' },
      h('h2', null, input.side === 'left' ? 'Tab 1 · this tab' : 'Tab 2 · on this page'),
      h(
        'div',
        { class: 'segmented small', role: 'radiogroup', 'aria-label': `node of the ${input.side} half` },
        input.choices.map((id) =>
          h(
            'button',
            {
              class: `seg${id === input.node ? ' on' : ''}`,
              role: 'radio',
              'aria-checked': String(id === input.node),
              'data-testid': `${p}-pick-${id}`,
              onclick: () => on.pick(id),
            },
            id,
          ),
        ),
      ),
      served(cart?.servedBy),
      cart !== undefined && cart.versions > 1
        ? h('span', { class: 'pill warn' }, `${cart.versions} versions, merged`)
        : null,
    ),
    cart === undefined
      ? h('p', { class: 'muted' }, 'Loading…')
      : cart.items.length === 0
        ? h('p', { class: 'muted pane-empty' }, 'Empty.')
        : h(
            'ul',
            { class: 'plines' },
            cart.items.map((i) => line(p, i, on)),
          ),
    cart === undefined || cart.items.length === 0
      ? null
      : h('p', { class: 'pane-total' }, h('span', null, 'Total'), h('strong', null, price(cart.totalCents))),
    cart === undefined ? null : savedNote(input.saved, `${p}-saved`, true),
    h(
      'div',
      { class: 'pane-add' },
      h('span', { class: 'muted small' }, 'Add:'),
      products.map((pr) =>
        h(
          'button',
          {
            class: 'chip',
            'data-testid': `${p}-add-${pr.id}`,
            title: `add a ${pr.name}`,
            onclick: () => on.add(pr.id),
          },
          pr.name,
        ),
      ),
    ),
  );
}

export function splitScreen(
  left: PaneInput,
  right: PaneInput,
  products: readonly Product[],
  on: { readonly left: PaneHandlers; readonly right: PaneHandlers },
): HTMLElement {
  return h(
    'div',
    { class: 'split-inner' },
    h(
      'p',
      { class: 'muted split-intro' },
      'One cart, two tabs on one page: each half reads and writes it through its own node. Split the cluster with the two nodes on different sides and the halves drift apart; heal it and they merge.',
    ),
    h('div', { class: 'panes' }, pane(left, products, on.left), pane(right, products, on.right)),
  );
}
