/** The built-in resolvers. Any `(siblings: T[]) => T` is a resolver too. */
import { cartResolver } from '../cart/index.js';
import { lww } from './lww.js';
import { union } from './union.js';

export type { LwwOptions } from './lww.js';
export type { Resolver, Version } from './types.js';
export type { UnionOptions } from './union.js';

export const resolvers = {
  /** Last writer wins by timestamp; ties broken by value. Loses concurrent writes by design. */
  lww,
  /** Union of arrays or Sets; never loses an add, never keeps a removal. */
  union,
  /** The cart CRDT: keeps every add, never resurrects a seen removal. */
  cart: cartResolver,
} as const;
