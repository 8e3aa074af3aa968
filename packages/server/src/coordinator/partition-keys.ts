/**
 * The replica side of a key listing (a coverage query, coverage.ts): one bounded scan of one
 * partition of this node's store, keeping the live keys that start with a prefix. Tombstones (keys
 * whose every version was deleted) are scanned but never listed. A partition is stored bucket by
 * bucket (storage/stored-keys.ts), so a prefix cannot be sought: every entry is scanned, and
 * `scanMax` bounds the work of one call whatever the prefix matches.
 */
import { type NodeId, partitionOf, type Ring, TesseraError } from '@tessera/core';
import { replicasOf } from '../anti-entropy/replicas-of.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { KeyListingSource, ListKeysReply, ListKeysRequest } from '../transport/peer-api.js';

export type ScannableStore = Pick<ReplicaStore, 'scanPartition' | 'partitionCount'>;

/** One bounded scan of `request.partition` of `store` (no check that this node replicates it). */
export async function scanPartitionKeys(
  store: ScannableStore,
  request: ListKeysRequest,
): Promise<ListKeysReply> {
  const { partition, afterKey, prefix, keysMax, scanMax } = request;
  if (afterKey !== undefined && partitionOf(store.partitionCount, afterKey) !== partition) {
    // The store resumes after a key at that key's own place: one of another partition would scan across partitions.
    throw new TesseraError('BAD_REQUEST', `The key to resume after is not a key of partition ${partition}.`, {
      partition,
    });
  }
  const keys: string[] = [];
  let scanned = 0;
  let lastKey: string | undefined;
  let full = false;
  const options = afterKey === undefined ? { limit: scanMax } : { limit: scanMax, afterKey };
  for await (const [key, state] of store.scanPartition(partition, options)) {
    scanned++;
    lastKey = key;
    if (state.siblings.length > 0 && key.startsWith(prefix)) {
      keys.push(key);
      if (keys.length >= keysMax) {
        full = true;
        break;
      }
    }
  }
  // Done only when the scan ran out of entries before either bound stopped it.
  const done = !full && scanned < scanMax;
  return lastKey === undefined ? { keys, scanned, done } : { keys, lastKey, scanned, done };
}

export interface PartitionKeysOptions {
  readonly self: NodeId;
  /** N: replicas per key. */
  readonly n: number;
  readonly ring: () => Ring;
  readonly store: ScannableStore;
}

/**
 * `ListKeys` as a node serves it to peers. A node answers only for partitions it replicates in its
 * own view of the ring (CLUSTER_MISMATCH otherwise), so a caller whose view is behind never takes
 * the empty answer of a node that no longer holds a partition for a complete one.
 */
export class PartitionKeys implements KeyListingSource {
  constructor(private readonly options: PartitionKeysOptions) {}

  async listKeys(request: ListKeysRequest): Promise<ListKeysReply> {
    const ring = this.options.ring();
    const { partition } = request;
    if (partition >= ring.partitionCount) {
      throw new TesseraError(
        'CLUSTER_MISMATCH',
        `Partition ${partition} does not exist: this cluster has ${ring.partitionCount} partitions.`,
        { partition, partitionCount: ring.partitionCount },
      );
    }
    if (!replicasOf(ring, partition, this.options.n).includes(this.options.self)) {
      throw new TesseraError(
        'CLUSTER_MISMATCH',
        `Node ${this.options.self} does not replicate partition ${partition} in its view of the ring (version ${ring.version}); ask another replica.`,
        { partition, ringVersion: ring.version },
      );
    }
    return scanPartitionKeys(this.options.store, request);
  }
}
