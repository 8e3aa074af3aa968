/**
 * Cart changes as updaters: `cart.add('sku-1', 2)` returns a function from the current cart to the
 * next, for `client.update(key, cart.add('sku-1', 2), { resolver: resolvers.cart() })`. Each
 * updater draws its tag once, when it is made, so applying it again (update retrying after a
 * write whose outcome was unknown) changes nothing: the add is not counted twice.
 */
import { TesseraError } from '../errors.js';
import { knowsTag, newTag, tombstone } from '../resolvers/tags.js';
import { build, CART_QUANTITY_MAX, type Cart, type CartLine, type CartOptions, emptyCart } from './state.js';

export type CartUpdater = (cart: Cart | undefined) => Cart;

export interface CartOpOptions extends CartOptions {
  /** The tag of the new line; default: 72 random bits. Give one to make an op reproducible. */
  readonly tag?: string;
  /** The clock, ms since the epoch; default Date.now. */
  readonly now?: () => number;
}

/** Adds `quantity` (default 1) of `item`. Concurrent adds of the same item add up. */
export function add(item: string, quantity = 1, options: CartOpOptions = {}): CartUpdater {
  checkItem(item);
  checkQuantity(quantity, 1);
  const tag = options.tag ?? newTag();
  const at = (options.now ?? Date.now)();
  return (cart) => {
    const current = cart ?? emptyCart();
    if (knowsTag({ entries: current.lines, removed: current.removed }, tag)) return current;
    const lines = new Map(Object.entries(current.lines));
    lines.set(tag, { item, qty: quantity, at });
    return build(lines, new Map(Object.entries(current.removed)), options);
  };
}

/**
 * Sets the quantity of `item`, replacing every line of it this writer sees. 0 removes the item.
 * Concurrent setQuantity calls resolve to the larger quantity; adds they did not see come on top.
 */
export function setQuantity(item: string, quantity: number, options: CartOpOptions = {}): CartUpdater {
  checkItem(item);
  checkQuantity(quantity, 0);
  if (quantity === 0) return remove(item, options);
  const tag = options.tag ?? newTag();
  const now = options.now ?? Date.now;
  const at = now();
  return (cart) => {
    const current = cart ?? emptyCart();
    if (knowsTag({ entries: current.lines, removed: current.removed }, tag)) return current;
    const { entries: lines, removed } = drop(current, (line) => line.item === item, now());
    lines.set(tag, { item, qty: quantity, set: true, at });
    return build(lines, removed, options);
  };
}

/** Removes `item`: every line of it this writer sees. Adds it did not see survive. */
export function remove(item: string, options: CartOpOptions = {}): CartUpdater {
  checkItem(item);
  const now = options.now ?? Date.now;
  return (cart) => {
    const current = cart ?? emptyCart();
    const { entries: lines, removed } = drop(current, (line) => line.item === item, now());
    return build(lines, removed, options);
  };
}

/** Removes every item this writer sees. */
export function clear(options: CartOpOptions = {}): CartUpdater {
  const now = options.now ?? Date.now;
  return (cart) => {
    const current = cart ?? emptyCart();
    const { entries: lines, removed } = drop(current, () => true, now());
    return build(lines, removed, options);
  };
}

function checkItem(item: string): void {
  if (typeof item !== 'string' || item.length === 0 || item.length > 256) {
    throw new TesseraError(
      'INVALID_ARGUMENT',
      'A cart item is a non-empty string of at most 256 characters.',
    );
  }
}

function checkQuantity(quantity: number, min: number): void {
  if (!Number.isInteger(quantity) || quantity < min || quantity > CART_QUANTITY_MAX) {
    throw new TesseraError(
      'INVALID_ARGUMENT',
      `A cart quantity is a whole number from ${min} to ${CART_QUANTITY_MAX}; got ${quantity}.`,
    );
  }
}

/** Tombstones the lines of `cart` that `matches`. */
function drop(cart: Cart, matches: (line: CartLine) => boolean, at: number) {
  return tombstone({ entries: cart.lines, removed: cart.removed }, matches, at);
}
