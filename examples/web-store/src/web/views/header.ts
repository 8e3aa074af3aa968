/**
 * The header's right end: the cart with its count (a button to it, so the cart is one tap away on a
 * phone), and while the cart has several versions a button to the panel that shows their merge.
 */
import type { CartView } from '../../shared/api.js';
import { h, s } from '../dom.js';

export interface HeaderHandlers {
  readonly showCart: () => void;
  readonly showMerge: () => void;
}

export function headerCart(cart: CartView | undefined, on: HeaderHandlers): HTMLElement {
  const versions = cart?.versions ?? 0;
  return h(
    'div',
    { class: 'header-cart' },
    versions > 1
      ? h(
          'button',
          {
            class: 'versions-alert',
            'data-testid': 'versions-alert',
            title: 'This cart has several versions: see how they merge',
            'aria-label': `${versions} versions: see the merge`,
            onclick: () => on.showMerge(),
          },
          h('span', { class: 'va-count' }, String(versions)),
          h('span', { class: 'va-text' }, ' versions · see the merge'),
        )
      : null,
    h(
      'button',
      {
        class: 'cart-button',
        'data-testid': 'header-cart',
        'aria-label': `cart, ${cart?.count ?? 0} items`,
        onclick: () => on.showCart(),
      },
      s(
        'svg',
        { class: 'cart-icon', viewBox: '0 0 24 24', width: 20, height: 20, 'aria-hidden': 'true' },
        s('path', { d: 'M3 4h2.2l2.1 10.2a1.5 1.5 0 0 0 1.5 1.2h8.4a1.5 1.5 0 0 0 1.5-1.1L20.5 8H6.4' }),
        s('circle', { cx: 9.5, cy: 19.5, r: 1.5 }),
        s('circle', { cx: 17, cy: 19.5, r: 1.5 }),
      ),
      h('span', { class: 'cart-label' }, 'Cart'),
      h(
        'span',
        { class: 'count', 'data-testid': 'header-count' },
        cart === undefined ? '…' : String(cart.count),
      ),
    ),
  );
}
