/**
 * A write's receipt: how the write was stored, as its coordinator knew when it answered (the
 * `stored` of a PUT or DELETE answer, docs/api.md). It lists the nodes that had acknowledged the
 * version by then, the coordinator included once its own copy was on disk: each either as one of
 * the key's N replicas, or as a fallback holding it as a hint for one of them (sloppy quorum,
 * paper 4.6). Acknowledgements that arrive after the answer are not in it, so a receipt can
 * under-count, never over-count. Shared by the server, which builds it, and the client.
 */
import type { NodeId } from './clock.js';

/** One node that acknowledged a write. */
export type WriteAck =
  /** One of the key's N replicas stored the version in its data. */
  | { readonly node: NodeId; readonly as: 'replica' }
  /** A fallback stored it as a hint for the replica `for`, which it hands it to later. */
  | { readonly node: NodeId; readonly as: 'hint'; readonly for: NodeId };

export interface WriteReceipt {
  /** The nodes that acknowledged by the time the coordinator answered: replicas first, ring order. */
  readonly acks: readonly WriteAck[];
  /** How many of the key's N replicas hold the write (the acks `as: 'replica'`). */
  readonly replicas: number;
  /** Replicas per key. */
  readonly n: number;
  /** The write quorum the write waited for. */
  readonly w: number;
}
