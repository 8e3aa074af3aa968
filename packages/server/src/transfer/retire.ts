/**
 * Dropping what this node no longer replicates (paper 4.9): once a ring change has committed and
 * held for `retireDelayMs` (so writes coordinated under the old ring have landed, and the new
 * replicas hold the data), partitions this node is not one of the N replicas of are removed from
 * its store. Stateless: it looks at what the store holds, so it also cleans up after a restart and
 * removes stray copies a fallback coordinator left. A copy kept could otherwise bring old versions
 * back if this node became a replica again after the tombstones that cancel them were collected.
 */
import { type NodeId, type Ring, replicasOf } from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';

export interface RetireDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly retireDelayMs: number;
  readonly now: () => number;
  readonly log: Logger;
}

export class PartitionRetirer {
  private seen: { version: number; sinceMs: number } | undefined;
  dropped = 0;

  constructor(private readonly deps: RetireDeps) {}

  async tick(): Promise<void> {
    const state = this.deps.view.state;
    if (state === undefined || state.pending !== undefined || !state.ring.owners.includes(this.deps.self))
      return;
    const now = this.deps.now();
    if (this.seen?.version !== state.ring.version) this.seen = { version: state.ring.version, sinceMs: now };
    if (now - this.seen.sinceMs < this.deps.retireDelayMs) return;
    for (const partition of this.notMine(state.ring)) {
      const count = await this.deps.store.dropPartition(partition);
      if (count === 0) continue;
      this.dropped += count;
      this.deps.log.info(
        { partition, keys: count, ringVersion: state.ring.version },
        'dropped a partition this node no longer replicates',
      );
    }
  }

  private notMine(ring: Ring): number[] {
    const out: number[] = [];
    for (let p = 0; p < ring.partitionCount; p++) {
      if (!replicasOf(ring, p, this.deps.n).includes(this.deps.self)) out.push(p);
    }
    return out;
  }
}
