/**
 * Cart changes as updaters: `cart.add('sku-1', 2)` returns a function from the current cart to the
 * next, for `client.update(key, cart.add('sku-1', 2), { resolver: resolvers.cart() })`. Each
 * updater draws its tag once, when it is made, so applying it again (update retrying after a
 * write whose outcome was unknown) changes nothing: the add is not counted twice.
 */
import { TesseraError } from '../errors.js';
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
    if (applied(current, tag)) return current;
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
    if (applied(current, tag)) return current;
    const { lines, removed } = tombstone(current, (line) => line.item === item, now());
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
    const { lines, removed } = tombstone(current, (line) => line.item === item, now());
    return build(lines, removed, options);
  };
}

/** Removes every item this writer sees. */
export function clear(options: CartOpOptions = {}): CartUpdater {
  const now = options.now ?? Date.now;
  return (cart) => {
    const current = cart ?? emptyCart();
    const { lines, removed } = tombstone(current, () => true, now());
    return build(lines, removed, options);
  };
}

function applied(cart: Cart, tag: string): boolean {
  return Object.hasOwn(cart.lines, tag) || Object.hasOwn(cart.removed, tag);
}

function tombstone(
  cart: Cart,
  matches: (line: CartLine) => boolean,
  at: number,
): { lines: Map<string, CartLine>; removed: Map<string, number> } {
  const lines = new Map<string, CartLine>();
  const removed = new Map(Object.entries(cart.removed));
  for (const [tag, line] of Object.entries(cart.lines)) {
    if (matches(line)) removed.set(tag, at);
    else lines.set(tag, line);
  }
  return { lines, removed };
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

const TAG_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** 72 random bits as 12 base64url characters (crypto.getRandomValues: browsers and Node 20). */
export function newTag(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += TAG_ALPHABET[(n >> 18) & 63]! + TAG_ALPHABET[(n >> 12) & 63]!;
    out += TAG_ALPHABET[(n >> 6) & 63]! + TAG_ALPHABET[n & 63]!;
  }
  return out;
}
