/**
 * @tessera/client: the SDK for Tessera, for browsers and Node.js. This entry has no Node-only
 * imports; in Node the package's "node" export condition loads ./node.js instead, the same API
 * with a pooled keep-alive transport.
 */
export { canonical } from './canonical.js';
export type { Cart, CartItem, CartLine, CartOpOptions, CartOptions, CartUpdater } from './cart/index.js';
export { CART_QUANTITY_MAX, CART_TOMBSTONES_MAX, cart } from './cart/index.js';
export { type ClientStats, TesseraClient, type ValueResult } from './client.js';
export type { CollectionGetResult, CollectionListOptions, CollectionOptions } from './collection.js';
export { Collection } from './collection.js';
export {
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  type ServerErrorCode,
  TesseraError,
  type TesseraErrorCode,
  type TesseraErrorInit,
  type TesseraErrorJson,
} from './errors.js';
export type { JsonCodec } from './http/call.js';
export type { BackoffOptions } from './http/retry.js';
export type { RequestCounters, RequestEvent } from './http/stats.js';
export type {
  CallOptions,
  DeleteResult,
  GetManyResult,
  GetResult,
  KeyPage,
  ListOptions,
  ListPageOptions,
  PutResult,
  ReadOptions,
  WriteAck,
  WriteOptions,
  WriteReceipt,
} from './kv.js';
export type { TesseraClientOptions } from './options.js';
export type {
  AnyCrdt,
  Crdt,
  CrdtDefinition,
  CrdtFields,
  CrdtFieldUpdaters,
  CrdtMapCrdt,
  CrdtMapOfCrdt,
  CrdtMapOfValue,
  CrdtMapValue,
  CrdtMapView,
  CrdtUpdater,
  LwwOptions,
  LwwRegister,
  LwwRegisterCrdt,
  LwwRegisterOptions,
  LwwSetOptions,
  ORSet,
  ORSetCrdt,
  ORSetOpOptions,
  ORSetOptions,
  PNCounter,
  PNCounterCrdt,
  Resolver,
  StateOf,
  UnionOptions,
  Version,
  ViewOf,
} from './resolvers/index.js';
export {
  counter,
  crdtMap,
  crdtMapOf,
  defineCrdt,
  lwwRegister,
  orSet,
  resolvers,
  TOMBSTONES_MAX,
} from './resolvers/index.js';
export type { NodeUrl } from './routing/ring.js';
export type { RingStats, Role, Route } from './routing/router.js';
export type { InferOutput, SchemaIssue, SchemaResult, StandardSchemaV1 } from './schema.js';
export type { StrongRead, StrongWriteResult } from './strong/calls.js';
export type {
  StrongDeleteOptions,
  StrongOptions,
  StrongPutOptions,
  StrongUpdateOptions,
  StrongUpdateResult,
  StrongUpdater,
  StrongValue,
} from './strong/collection.js';
export { STRONG_UPDATE_RETRIES, StrongCollection } from './strong/collection.js';
export type { StrongWriteCondition, TransactCondition } from './strong/conditions.js';
export { type CancellationReason, cancellationReasons } from './strong/reasons.js';
export type {
  TransactAction,
  TransactCheck,
  TransactDelete,
  TransactGetItem,
  TransactOptions,
  TransactPut,
  TransactResult,
} from './strong/transact.js';
export { TRANSACT_ITEMS_MAX } from './strong/transact.js';
export { type FetchLike, fetchTransport } from './transport/fetch.js';
export type { HttpMethod, Transport, TransportRequest, TransportResponse } from './transport/types.js';
export { TransportFailure } from './transport/types.js';
export type { UpdateOptions, UpdateResult, Updater } from './update.js';
