/**
 * The product grid: drawn pictures, names, prices, how many are left (the strong `stock/<id>`
 * keys) and an "Add to cart" button each. Adding stays possible when an item is sold out: the cart
 * is always writeable, and checkout is where the stock is taken, or refused.
 */
import type { CartView, Product } from '../../shared/api.js';
import { h, price } from '../dom.js';

/** At most this many left: "n left" is shown as scarce. */
const FEW_LEFT = 3;

function stockLabel(id: string, left: number | undefined): HTMLElement | null {
  if (left === undefined) return null;
  const kind = left === 0 ? 'sold-out' : left <= FEW_LEFT ? 'few' : 'plenty';
  return h(
    'span',
    { class: `stock ${kind}`, 'data-testid': `stock-${id}`, 'data-left': String(left) },
    left === 0 ? 'sold out' : `${left} left`,
  );
}

export function catalogView(
  products: readonly Product[],
  cart: CartView | undefined,
  stock: Readonly<Record<string, number>> | undefined,
  onAdd: (id: string) => void,
): HTMLElement {
  const inCart = new Map((cart?.items ?? []).map((i) => [i.productId, i.quantity]));
  return h(
    'div',
    { class: 'catalog-inner' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', null, 'Catalog'),
      h('p', { class: 'muted' }, 'Everything ships tomorrow. Probably.'),
    ),
    h(
      'div',
      { class: 'grid' },
      products.map((p) =>
        h(
          'article',
          { class: 'product', 'data-testid': `product-${p.id}` },
          h(
            'div',
            { class: 'product-art' },
            h('img', { src: p.image, alt: p.name, width: 200, height: 150 }),
          ),
          h(
            'div',
            { class: 'product-body' },
            h('h3', null, p.name),
            h('p', { class: 'muted small' }, p.blurb),
            h(
              'div',
              { class: 'product-foot' },
              h('span', { class: 'price' }, price(p.priceCents)),
              stockLabel(p.id, stock?.[p.id]),
              inCart.has(p.id) ? h('span', { class: 'in-cart' }, `${inCart.get(p.id)} in cart`) : null,
              h(
                'button',
                { class: 'btn add', 'data-testid': `add-${p.id}`, onclick: () => onAdd(p.id) },
                'Add',
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
