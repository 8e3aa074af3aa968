/**
 * @tessera/client/testing: what an application's tests need, without a cluster.
 * - `assertResolverLaws` / `resolverLaws`: check a resolver against the laws (laws.ts; the caller
 *   passes its fast-check module in).
 * - `createMemoryClient`: a TesseraClient backed by an in-memory node that can be told to produce
 *   siblings and failures (memory-client.ts).
 */
export type { Fault, FaultOptions, MemoryCall, MemoryFaultCode, MemoryOp, RuleOptions } from './faults.js';
export {
  assertResolverLaws,
  type FastCheck,
  type ResolverLaw,
  type ResolverLawOptions,
  resolverLaws,
} from './laws.js';
export { createMemoryClient, MemoryClient, type MemoryClientOptions } from './memory-client.js';
export { type MemoryCallRecord, MemoryNode } from './memory-node.js';
export { MemoryStore, type MemoryStoreOptions, type StoredRead, type StoredText } from './memory-store.js';
