/**
 * The replica side of anti-entropy: answers a peer's MerkleHashes and MerkleKeys calls from this
 * node's store. A node answers only for partitions it replicates in its own view of the ring, so
 * a peer with a different view (gossip not caught up yet) never repairs into the wrong node.
 */
import { type NodeId, type Ring, TesseraError } from '@tessera/core';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { MerkleKeysReply, MerkleKeysRequest } from '../transport/peer-api.js';
import { listBuckets } from './listing.js';
import { replicasOf } from './replicas-of.js';

/** Default bound on the keys of one MerkleKeys reply. */
export const MERKLE_KEYS_PER_REPLY_MAX = 10_000;
/** Default bound on the bytes of one MerkleKeys reply, far below the 4 MiB message limit. */
export const MERKLE_KEYS_REPLY_BYTES_MAX = 1024 * 1024;

export interface MerkleResponderOptions {
  readonly self: NodeId;
  /** N: replicas per key. */
  readonly n: number;
  readonly ring: () => Ring;
  readonly store: ReplicaStore;
  readonly keysPerReplyMax?: number;
  readonly replyBytesMax?: number;
}

export class MerkleResponder {
  constructor(private readonly options: MerkleResponderOptions) {}

  /** `PeerApi.merkleHashes`. The first call for a partition builds its tree. */
  async merkleHashes(partition: number, level: number, indices: readonly number[]): Promise<Uint8Array> {
    this.checkReplica(partition);
    const tree = await this.options.store.merkleTree(partition);
    return tree.hashes(level, indices);
  }

  /** `PeerApi.merkleKeys`. */
  async merkleKeys(request: MerkleKeysRequest): Promise<MerkleKeysReply> {
    this.checkReplica(request.partition);
    return listBuckets(this.options.store, request.partition, request.buckets, {
      keysMax: Math.min(request.keysMax, this.options.keysPerReplyMax ?? MERKLE_KEYS_PER_REPLY_MAX),
      bytesMax: this.options.replyBytesMax ?? MERKLE_KEYS_REPLY_BYTES_MAX,
    });
  }

  private checkReplica(partition: number): void {
    const ring = this.options.ring();
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
        `Node ${this.options.self} does not replicate partition ${partition} in its view of the ring (version ${ring.version}); the caller's view differs and gossip will reconcile them.`,
        { partition, ringVersion: ring.version },
      );
    }
  }
}
