/**
 * What anti-entropy needs from the rest of the node, as small interfaces (a `PeerDirectory` and a
 * gRPC `PeerClient` satisfy them; tests and the simulation pass in-process fakes), its limits,
 * and the shapes of its results and statistics.
 */
import type { NodeId } from '@tessera/core';
import type { PeerClient } from '../transport/peer-api.js';

export type { BackgroundGate } from '../background/admission.js';

/** The calls anti-entropy makes to one other replica. */
export type AntiEntropyClient = Pick<PeerClient, 'read' | 'replicate' | 'merkleHashes' | 'merkleKeys'>;

/** The other nodes and this node's local view of which are down (a subset of `PeerDirectory`). */
export interface AntiEntropyPeers {
  client(node: NodeId): AntiEntropyClient | undefined;
  isDown(node: NodeId): boolean;
  markFailed(node: NodeId, reason: unknown): void;
  markAlive(node: NodeId): void;
}

/** Bounds on one exchange of one partition with one peer. */
export interface ExchangeLimits {
  /** Deadline of each peer call; the peer may have to build its tree first. */
  readonly timeoutMs: number;
  /** Keys repaired (read from the peer, and sent to it where needed) per exchange. */
  readonly keysPerExchangeMax: number;
  /** State bytes read from and sent to the peer per exchange. */
  readonly bytesPerExchangeMax: number;
  /** Buckets asked for in one MerkleKeys call. */
  readonly bucketsPerCallMax: number;
  /** Keys asked for in one MerkleKeys call. */
  readonly keysPerCallMax: number;
  /** Keys repaired at once. */
  readonly repairConcurrency: number;
}

export const DEFAULT_EXCHANGE_LIMITS: ExchangeLimits = Object.freeze({
  timeoutMs: 5_000,
  keysPerExchangeMax: 1_000,
  bytesPerExchangeMax: 16 * 1024 * 1024,
  bucketsPerCallMax: 256,
  keysPerCallMax: 10_000,
  repairConcurrency: 8,
});

/**
 * - `in-sync`: the trees matched; `repaired`: they differed and every differing key was repaired
 *   (both end the exchange with the two replicas in sync, which tombstone collection relies on);
 * - `incomplete`: a limit or the admission gate stopped the repair part way (the next exchange goes on);
 * - `failed`: a peer call or the local store failed, or keys could not be repaired (the others
 *   were: `keysFailed`, `error` the first one's code; the next exchange comes after the interval);
 * - `deferred`: the admission gate refused to start; `no-peer`: every other replica is down;
 * - `solo`: the partition has no other replica (only tombstone collection ran);
 * - `idle`: this node replicates no partition.
 */
export type ExchangeOutcome =
  | 'in-sync'
  | 'repaired'
  | 'incomplete'
  | 'failed'
  | 'deferred'
  | 'no-peer'
  | 'solo'
  | 'idle';

export const EXCHANGE_OUTCOMES: readonly ExchangeOutcome[] = Object.freeze([
  'in-sync',
  'repaired',
  'incomplete',
  'failed',
  'deferred',
  'no-peer',
  'solo',
  'idle',
]);

/** What moved during one exchange. */
export interface TransferCounts {
  /** Buckets whose hashes differed. */
  readonly bucketsDiffering: number;
  /** Keys whose digests differed (at most keysPerExchangeMax are repaired). */
  readonly keysDiffering: number;
  /** Keys whose local state changed by merging the peer's. */
  readonly keysPulled: number;
  /** Keys whose state was sent to the peer (Replicate). */
  readonly keysPushed: number;
  /** Keys that could not be repaired (a state too large for one message, or refused as invalid): skipped. */
  readonly keysFailed: number;
  /** Encoded state bytes sent to the peer. */
  readonly bytesSent: number;
  /** Encoded state bytes, hashes and key listings received from the peer. */
  readonly bytesReceived: number;
}

export interface ExchangeResult extends TransferCounts {
  readonly outcome: ExchangeOutcome;
  readonly partition?: number;
  readonly peer?: NodeId;
  readonly tombstonesCollected: number;
  readonly startedMs: number;
  /** The error code (or message) when `failed`. */
  readonly error?: string;
}

/** One partition's anti-entropy state, for /v1/status. */
export interface PartitionSyncStatus {
  readonly partition: number;
  readonly lastExchangeMs?: number;
  readonly lastPeer?: NodeId;
  readonly lastOutcome?: ExchangeOutcome;
  /** Per other replica: when the last exchange that ended in sync with it started. */
  readonly inSyncMs: Readonly<Record<NodeId, number>>;
}

/** Totals since the node started, for /metrics (all counters), and per-partition state. */
export interface AntiEntropyStats {
  readonly exchanges: Readonly<Record<ExchangeOutcome, number>>;
  readonly keysPulled: number;
  readonly keysPushed: number;
  readonly keysFailed: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
  readonly tombstonesCollected: number;
  /** Partition trees held in memory (MERKLE_TREE_BYTES each). */
  readonly treesHeld: number;
  /** The partitions this node replicates, in order. */
  readonly partitions: readonly PartitionSyncStatus[];
}
