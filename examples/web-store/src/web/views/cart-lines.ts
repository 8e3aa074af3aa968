/**
 * The cart's lines, with quantity steppers and a remove button. A line this tab just removed keeps
 * its row for a moment ("removed · undo"), with nothing where its × was, so the next line's ×
 * stays where it is and a second click does not remove it too.
 */
import type { CartLineView } from '../../shared/api.js';
import { h, price } from '../dom.js';
import type { Row } from '../state/removals.js';

export interface LineHandlers {
  readonly setQuantity: (line: CartLineView, quantity: number) => void;
  readonly remove: (line: CartLineView) => void;
  readonly undo: (line: CartLineView) => void;
}

function thumb(line: CartLineView): HTMLElement {
  return line.image === ''
    ? h('span', { class: 'thumb' })
    : h('img', { class: 'thumb', src: line.image, alt: '' });
}

function liveLine(i: CartLineView, on: LineHandlers): HTMLElement {
  return h(
    'li',
    { class: 'line', 'data-testid': `cart-line-${i.productId}` },
    thumb(i),
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
          onclick: () => on.setQuantity(i, i.quantity - 1),
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
        title: 'Remove',
        'data-testid': `remove-${i.productId}`,
        onclick: () => on.remove(i),
      },
      '×',
    ),
  );
}

function removedLine(i: CartLineView, on: LineHandlers): HTMLElement {
  return h(
    'li',
    { class: 'line removed-line', 'data-testid': `removed-line-${i.productId}` },
    thumb(i),
    h(
      'div',
      { class: 'line-main' },
      h('span', { class: 'line-name' }, i.name),
      h('span', { class: 'muted small' }, 'removed'),
    ),
    h(
      'button',
      { class: 'btn small ghost undo', 'data-testid': `undo-${i.productId}`, onclick: () => on.undo(i) },
      'Undo',
    ),
    h('span', { class: 'remove-slot', 'aria-hidden': 'true' }),
  );
}

export function cartLines(rows: readonly Row[], on: LineHandlers): HTMLElement {
  if (rows.length === 0)
    return h(
      'p',
      { class: 'empty muted', 'data-testid': 'cart-empty' },
      'Nothing here yet. Add something from the catalog.',
    );
  return h(
    'ul',
    { class: 'lines' },
    rows.map((r) => (r.kind === 'line' ? liveLine(r.line, on) : removedLine(r.line, on))),
  );
}
