/**
 * The cart panel: lines, total, checkout and its notes (a refusal naming what ran out), the share
 * link and the orders.
 */
import type { CartView, Order, StoryCheckout } from '../../shared/api.js';
import { clock, h, plural, price } from '../dom.js';
import type { CheckoutNote, CheckoutRefusal } from '../state/checkout.js';
import type { Row } from '../state/removals.js';
import type { SavedText } from '../state/saved.js';
import { cartLines, type LineHandlers } from './cart-lines.js';
import { checkoutNote, elsewhereNote, refusedNote } from './cart-notes.js';
import { savedNote } from './saved-note.js';

export interface CartHandlers extends LineHandlers {
  readonly checkout: () => void;
  readonly copy: (text: string) => void;
  readonly showMerge: () => void;
}

export interface CartPanelState {
  readonly cart: CartView | undefined;
  readonly rows: readonly Row[];
  readonly orders: readonly Order[];
  readonly note: CheckoutNote | undefined;
  /** The store refused this tab's last checkout (sold out): nothing was ordered. */
  readonly refusal: CheckoutRefusal | undefined;
  readonly elsewhere: readonly StoryCheckout[];
  readonly shareUrl: string;
  readonly openIn: readonly { readonly id: string; readonly url: string }[];
  readonly busy: boolean;
  /** How this tab's last write was stored. */
  readonly saved: SavedText | undefined;
}

function share(state: CartPanelState, on: CartHandlers): HTMLElement {
  return h(
    'div',
    { class: 'share' },
    h('label', { for: 'share-url' }, 'Share this cart'),
    h(
      'div',
      { class: 'share-row' },
      h('input', { id: 'share-url', readonly: true, value: state.shareUrl, 'data-testid': 'share-url' }),
      h('button', { class: 'btn small ghost', onclick: () => on.copy(state.shareUrl) }, 'Copy'),
    ),
    state.openIn.length === 0
      ? null
      : h(
          'div',
          { class: 'open-in' },
          h('span', { class: 'muted small' }, 'Open it in a new tab that talks to '),
          state.openIn.map((n) =>
            h(
              'a',
              {
                class: 'chip',
                href: n.url,
                target: '_blank',
                rel: 'noopener',
                'data-testid': `open-in-${n.id}`,
              },
              n.id,
            ),
          ),
        ),
  );
}

function orders(list: readonly Order[]): HTMLElement | null {
  if (list.length === 0) return null;
  return h(
    'div',
    { class: 'orders', 'data-testid': 'orders' },
    h('h3', null, 'Orders from this cart'),
    h(
      'ul',
      null,
      list.map((o) =>
        h(
          'li',
          { 'data-testid': 'order', 'data-order': o.id },
          h('span', { class: 'order-id' }, `#${o.id.slice(0, 6)}`),
          h(
            'span',
            { class: 'muted small' },
            `${plural(
              o.lines.reduce((n, l) => n + l.quantity, 0),
              'item',
            )} · ${clock(o.createdAt)}`,
          ),
          h('span', { class: 'order-total' }, price(o.totalCents)),
        ),
      ),
    ),
  );
}

export function cartView(state: CartPanelState, on: CartHandlers): HTMLElement {
  const { cart } = state;
  return h(
    'div',
    { class: 'cart-inner' },
    h(
      'div',
      { class: 'cart-head' },
      h('h2', null, 'Your cart'),
      cart === undefined
        ? null
        : h('span', { class: 'count', 'data-testid': 'cart-count' }, String(cart.count)),
      cart !== undefined && cart.versions > 1
        ? h(
            'button',
            { class: 'pill warn pill-button', 'data-testid': 'cart-versions', onclick: () => on.showMerge() },
            `${cart.versions} versions, merged · see how`,
          )
        : null,
    ),
    cart === undefined ? h('p', { class: 'muted' }, 'Loading…') : cartLines(state.rows, on),
    cart === undefined || cart.items.length === 0
      ? null
      : h(
          'div',
          { class: 'total' },
          h('span', null, 'Total'),
          h('strong', { 'data-testid': 'cart-total' }, price(cart.totalCents)),
        ),
    cart === undefined ? null : savedNote(state.saved, 'saved-note'),
    h(
      'button',
      {
        class: 'btn primary checkout',
        'data-testid': 'checkout',
        disabled: cart === undefined || cart.items.length === 0,
        'aria-busy': state.busy ? 'true' : undefined,
        onclick: () => on.checkout(),
      },
      state.busy ? 'Placing the order…' : 'Check out',
    ),
    refusedNote(state.refusal),
    checkoutNote(state.note),
    elsewhereNote(state.elsewhere, cart === undefined || cart.items.length === 0),
    share(state, on),
    orders(state.orders),
  );
}
