/**
 * `@tessera/client/routing`: the client's partition-aware routing pieces on their own, for tools
 * that send requests themselves (the benchmark does): learn the ring from a node, then find each
 * key's preference list. `TesseraClient` uses them for its `routing` option.
 */
export {
  defaultNodeUrl,
  type Getter,
  loadRing,
  type NodeUrl,
  preferenceFor,
  type RingMember,
  type RingView,
} from './ring.js';
