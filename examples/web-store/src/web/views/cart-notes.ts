/**
 * The notes under the checkout button: the thank-you for the tab that placed the order (a second
 * press of a double click does not replace it), "already ordered" for a press that placed nothing,
 * a refusal that names the item that ran out, and for another tab of the cart, which order emptied
 * its cart.
 */
import type { StoryCheckout } from '../../shared/api.js';
import { clock, h, plural, price } from '../dom.js';
import type { CheckoutNote, CheckoutRefusal } from '../state/checkout.js';

const short = (id: string): string => `#${id.slice(0, 6)}`;

export function checkoutNote(note: CheckoutNote | undefined): HTMLElement | null {
  if (note === undefined) return null;
  const o = note.order;
  const items = plural(
    o.lines.reduce((n, l) => n + l.quantity, 0),
    'item',
  );
  let text: string;
  if (note.kind === 'placed') {
    text = `Thank you! Order ${short(o.id)} placed: ${items}, ${price(o.totalCents)}.`;
    if (note.presses > 1) text += ' You pressed twice; it was ordered once.';
  } else if (note.elsewhere) {
    text = `These items were already ordered from another tab (order ${short(o.id)}): nothing new was ordered.`;
  } else {
    text = `You had already ordered these items (order ${short(o.id)}): nothing new was ordered.`;
  }
  return h(
    'div',
    {
      class: `checkout-note${note.kind === 'placed' ? '' : ' replayed'}`,
      role: 'status',
      'data-testid': 'checkout-note',
      'data-kind': note.kind,
    },
    text,
  );
}

export function elsewhereNote(orders: readonly StoryCheckout[], cartEmpty: boolean): HTMLElement | null {
  const last = orders.at(-1);
  if (last === undefined) return null;
  const rest = cartEmpty
    ? 'That is why this cart is empty now.'
    : 'Those lines left this cart; what was added since stays.';
  return h(
    'div',
    { class: 'checkout-note elsewhere', role: 'status', 'data-testid': 'checkout-elsewhere' },
    `Ordered from another tab at ${clock(last.at)} (via ${last.node}): order ${short(last.orderId)}, ${plural(last.items, 'item')}, ${price(last.totalCents)}. ${rest}`,
  );
}

/** The store refused the checkout: "Sorry, the last Desk lamp was just bought — 0 left. …". */
export function refusedNote(refusal: CheckoutRefusal | undefined): HTMLElement | null {
  if (refusal === undefined) return null;
  return h(
    'div',
    {
      class: 'checkout-note refused',
      role: 'alert',
      'data-testid': 'checkout-refused',
      'data-code': refusal.code,
      'data-products': refusal.shortages.map((s) => s.productId).join(' '),
    },
    refusal.message,
  );
}
