/** The cart: a CRDT value with helpers to change it and read it (see state.ts for the model). */
import { type Crdt, defineCrdt } from '../resolvers/crdt.js';
import type { Resolver } from '../resolvers/types.js';
import { add, clear, remove, setQuantity } from './ops.js';
import { cartIssues, cartSchema, isCart } from './schema.js';
import {
  type Cart,
  type CartItem,
  type CartOptions,
  cartItems,
  cartQuantity,
  emptyCart,
  mergeCarts,
} from './state.js';

export type { CartOpOptions, CartUpdater } from './ops.js';
export type { Cart, CartItem, CartLine, CartOptions } from './state.js';
export { CART_QUANTITY_MAX, CART_TOMBSTONES_MAX } from './state.js';

/** The cart as a Crdt (for a field of crdtMap(), say): merge, checks, items as its reading. */
export function cartCrdt(options: CartOptions = {}): Crdt<Cart, CartItem[]> {
  return defineCrdt({
    name: 'a cart',
    merge: (carts) => mergeCarts(carts, options),
    issues: cartIssues,
    view: cartItems,
  });
}

/** The cart resolver: merges sibling carts (every add kept, every seen removal kept). */
export function cartResolver(options: CartOptions = {}): Resolver<Cart> {
  return cartCrdt(options).resolver;
}

export const cart = {
  /** A cart with nothing in it. */
  empty: emptyCart,
  /** Updater: adds `quantity` (default 1) of an item. */
  add,
  /** Updater: sets an item's quantity (0 removes it). */
  setQuantity,
  /** Updater: removes an item. */
  remove,
  /** Updater: removes every item. */
  clear,
  /** The items with their quantities, sorted by item. */
  items: cartItems,
  /** One item's quantity. */
  quantity: cartQuantity,
  /** Merges carts, as the resolver does. */
  merge: (carts: readonly Cart[], options?: CartOptions): Cart => mergeCarts(carts, options),
  /** Whether a value is a well-formed cart. */
  is: isCart,
  /** A Standard Schema for carts, for `client.collection(prefix, { schema: cart.schema })`. */
  schema: cartSchema,
  /** The cart as a Crdt, e.g. for a field of `crdtMap()`. */
  crdt: cartCrdt,
} as const;
