/**
 * Dropping what this node no longer replicates (paper 4.9): once a ring change has committed and
 * held for `retireDelayMs`, partitions this node is not one of the N replicas of are handed over
 * and removed from its store. Stateless: it looks at what the store holds, so it also cleans up
 * after a restart and removes stray copies a fallback coordinator left. A copy kept could
 * otherwise bring old versions back if this node became a replica again after the tombstones that
 * cancel them were collected.
 *
 * A key is dropped only after every replica of its partition acknowledged the copy this node holds,
 * and only if that copy did not change since; while a replica is down, the copy stays. Such
 * a copy may be the only one of an acknowledged write: one coordinated here as a fallback while every
 * replica was unreachable (its hints may expire or go to a node that has left since), one that
 * reached a leaving node after the new replicas had pulled its partitions, or one written under a
 * ring this node did not know was changing. A node that left the ring through a leave hands over
 * everything it still holds the same way.
 */
import {
  type ClusterState,
  encodeState,
  type KeyState,
  type NodeId,
  type Ring,
  replicasOf,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';

/** Keys handed over at once (each to every replica of its partition). */
const HAND_OVER_PAGE_KEYS = 64;

export interface RetireDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly retireDelayMs: number;
  readonly isDown: (node: NodeId) => boolean;
  /** Merges `state` (encoded) into `node`'s copy of `key` (the Replicate RPC); rejects if it did not. */
  readonly handOver: (node: NodeId, key: string, state: Uint8Array) => Promise<void>;
  readonly now: () => number;
  readonly log: Logger;
}

export class PartitionRetirer {
  private seen: { version: number; sinceMs: number } | undefined;
  private running = false;
  dropped = 0;
  /**
   * Partitions this node no longer replicates that still held keys after the last pass (a replica
   * was unreachable); undefined until a pass over the current ring finished.
   */
  retiring: number | undefined;

  constructor(private readonly deps: RetireDeps) {}

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.pass();
    } finally {
      this.running = false;
    }
  }

  private async pass(): Promise<void> {
    const state = this.deps.view.state;
    if (state === undefined || state.pending !== undefined || !this.handsOver(state)) return;
    const now = this.deps.now();
    if (this.seen?.version !== state.ring.version) {
      this.seen = { version: state.ring.version, sinceMs: now };
      this.retiring = undefined;
    }
    if (now - this.seen.sinceMs < this.deps.retireDelayMs) return;
    let retiring = 0;
    for (const partition of this.notMine(state.ring)) {
      if (!(await this.retire(state.ring, partition))) retiring++;
    }
    if (this.deps.view.state?.ring.version === state.ring.version) this.retiring = retiring;
  }

  /** A ring member does; a node out of the ring only if it left it through a leave. */
  private handsOver(state: ClusterState): boolean {
    if (state.ring.owners.includes(this.deps.self)) return true;
    const mine = (state.history ?? []).filter((r) => r.nodeId === this.deps.self);
    return mine.at(-1)?.kind === 'leave';
  }

  /** Hands the partition's keys over and drops them; false if some are still held. */
  private async retire(ring: Ring, partition: number): Promise<boolean> {
    const replicas = replicasOf(ring, partition, this.deps.n).filter((node) => node !== this.deps.self);
    const reachable = replicas.every((node) => !this.deps.isDown(node));
    let afterKey: string | undefined;
    let dropped = 0;
    let kept = 0;
    for (;;) {
      const page: Array<[string, KeyState]> = [];
      const options = afterKey === undefined ? {} : { afterKey };
      for await (const entry of this.deps.store.scanPartition(partition, {
        ...options,
        limit: HAND_OVER_PAGE_KEYS,
      }))
        page.push(entry);
      if (page.length === 0) break;
      afterKey = page.at(-1)![0];
      if (!reachable || replicas.length === 0) {
        kept += page.length;
        break;
      }
      const outcomes = await Promise.all(
        page.map(async ([key, state]) => {
          const encoded = encodeState(state);
          await Promise.all(replicas.map((node) => this.deps.handOver(node, key, encoded)));
          return this.deps.store.dropIfUnchanged(key, state);
        }),
      ).catch(() => undefined);
      if (outcomes === undefined) {
        kept += page.length;
        break;
      }
      for (const went of outcomes) if (went) dropped++;
      kept += outcomes.filter((went) => !went).length;
    }
    this.dropped += dropped;
    if (dropped > 0)
      this.deps.log.info(
        { partition, keys: dropped, ringVersion: ring.version },
        'handed over and dropped a partition this node no longer replicates',
      );
    if (kept > 0)
      this.deps.log.debug(
        { partition, replicas, keys: kept, ringVersion: ring.version },
        'keeping keys of a partition this node no longer replicates until its replicas take them',
      );
    return kept === 0;
  }

  private notMine(ring: Ring): number[] {
    const out: number[] = [];
    for (let p = 0; p < ring.partitionCount; p++) {
      if (!replicasOf(ring, p, this.deps.n).includes(this.deps.self)) out.push(p);
    }
    return out;
  }
}
