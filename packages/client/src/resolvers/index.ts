/**
 * The built-in resolvers. Any `(siblings: T[]) => T` is a resolver too, and every CRDT here has
 * its own (`counter.resolver`, `orSet().resolver`, `lwwRegister().resolver`, `crdtMap(f).resolver`):
 * they are not in `resolvers`, so that an app pays in its bundle only for the CRDTs it imports.
 */
import { cartResolver } from '../cart/index.js';
import { lww } from './lww.js';
import { union } from './union.js';

export type { PNCounter, PNCounterCrdt } from './counter.js';
export { counter } from './counter.js';
export type { AnyCrdt, Crdt, CrdtDefinition, CrdtUpdater, StateOf, ViewOf } from './crdt.js';
export { defineCrdt } from './crdt.js';
export type { LwwOptions } from './lww.js';
export type {
  CrdtFields,
  CrdtFieldUpdaters,
  CrdtMapCrdt,
  CrdtMapOfCrdt,
  CrdtMapOfValue,
  CrdtMapValue,
  CrdtMapView,
} from './map.js';
export { crdtMap, crdtMapOf } from './map.js';
export type { ORSet, ORSetCrdt, ORSetOpOptions, ORSetOptions } from './orset.js';
export { orSet } from './orset.js';
export type { LwwRegister, LwwRegisterCrdt, LwwRegisterOptions, LwwSetOptions } from './register.js';
export { lwwRegister } from './register.js';
export { TOMBSTONES_MAX } from './tags.js';
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
