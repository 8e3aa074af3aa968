/** The cart panel: lines with quantity steppers, total, checkout, the share link and the orders. */
import type { CartView, CheckoutResult, Order } from '../../shared/api.js';
import { clock, h, plural, price } from '../dom.js';

export interface CartHandlers {
  readonly setQuantity: (id: string, quantity: number) => void;
  readonly remove: (id: string) => void;
  readonly checkout: () => void;
  readonly copy: (text: string) => void;
}

export interface CartPanelState {
  readonly cart: CartView | undefined;
  readonly orders: readonly Order[];
  readonly lastCheckout: CheckoutResult | undefined;
  readonly shareUrl: string;
  readonly openIn: readonly { readonly id: string; readonly url: string }[];
  readonly busy: boolean;
}

function lines(cart: CartView, on: CartHandlers): HTMLElement {
  if (cart.items.length === 0)
    return h(
      'p',
      { class: 'empty muted', 'data-testid': 'cart-empty' },
      'Nothing here yet. Add something from the catalog.',
    );
  return h(
    'ul',
    { class: 'lines' },
    cart.items.map((i) =>
      h(
        'li',
        { class: 'line', 'data-testid': `cart-line-${i.productId}` },
        i.image === '' ? h('span', { class: 'thumb' }) : h('img', { class: 'thumb', src: i.image, alt: '' }),
        h(
          'div',
          { class: 'line-main' },
          h('span', { class: 'line-name' }, i.name),
          h('span', { class: 'muted small' }, price(i.priceCents)),
        ),
        h(
          'div',
          { class: 'stepper' },
          h(
            'button',
            {
              class: 'step',
              'aria-label': `one ${i.name} less`,
              'data-testid': `dec-${i.productId}`,
              onclick: () => on.setQuantity(i.productId, i.quantity - 1),
            },
            '−',
          ),
          h('span', { class: 'qty', 'data-testid': `qty-${i.productId}` }, String(i.quantity)),
          h(
            'button',
            {
              class: 'step',
              'aria-label': `one more ${i.name}`,
              'data-testid': `inc-${i.productId}`,
              onclick: () => on.setQuantity(i.productId, i.quantity + 1),
            },
            '+',
          ),
        ),
        h(
          'button',
          {
            class: 'remove',
            'aria-label': `remove ${i.name}`,
            title: 'Remove',
            'data-testid': `remove-${i.productId}`,
            onclick: () => on.remove(i.productId),
          },
          '×',
        ),
      ),
    ),
  );
}

function checkoutNote(result: CheckoutResult | undefined): HTMLElement | null {
  if (result === undefined) return null;
  const o = result.order;
  return h(
    'div',
    {
      class: `checkout-note${result.replayed ? ' replayed' : ''}`,
      'data-testid': 'checkout-note',
      'data-replayed': String(result.replayed),
    },
    result.replayed
      ? `Order #${o.id.slice(0, 6)} was already placed for this cart: nothing new was ordered.`
      : `Thank you! Order #${o.id.slice(0, 6)} placed: ${plural(
          o.lines.reduce((n, l) => n + l.quantity, 0),
          'item',
        )}, ${price(o.totalCents)}.`,
  );
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
        ? h('span', { class: 'pill warn' }, `${cart.versions} versions, merged`)
        : null,
    ),
    cart === undefined ? h('p', { class: 'muted' }, 'Loading…') : lines(cart, on),
    cart === undefined || cart.items.length === 0
      ? null
      : h(
          'div',
          { class: 'total' },
          h('span', null, 'Total'),
          h('strong', { 'data-testid': 'cart-total' }, price(cart.totalCents)),
        ),
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
    checkoutNote(state.lastCheckout),
    share(state, on),
    orders(state.orders),
  );
}
