/**
 * Dropping what this node no longer replicates (paper 4.9): once a ring change has committed and
 * held for `retireDelayMs`, partitions this node is not one of the N replicas of are handed over
 * and removed from its store. Stateless: it looks at what the store holds, so it also cleans up
 * after a restart and removes stray copies a fallback coordinator left. A copy kept could
 * otherwise bring old versions back if this node became a replica again after the tombstones that
 * cancel them were collected.
 *
 * A copy goes to every reachable replica of its partition at once, and is dropped only after every
 * replica acknowledged it, and only if it did not change since; while a replica is down, the copy
 * stays. Such a copy may be the only one of an acknowledged write: one coordinated here as a
 * fallback while every replica was unreachable (its hints may expire or go to a node that has left
 * since), one that reached a leaving node after the new replicas had pulled its partitions, or one
 * written under a ring this node did not know was changing. A node that left the ring through a
 * leave hands over everything it still holds the same way.
 *
 * A copy whose last change is older than `tombstoneGraceMs` is dropped without being handed over:
 * the replicas may have collected a delete that covered it, and it would come back. Handing copies
 * to the reachable replicas at once bounds this to a copy that no replica could take for the whole
 * grace period (docs/consistency.md, "Long partitions").
 */
import {
  type ClusterState,
  encodeState,
  type KeyState,
  lastChangeMs,
  type NodeId,
  type Ring,
  replicasOf,
  sameState,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';

/** Keys handed over at once (each to every replica of its partition). */
const HAND_OVER_PAGE_KEYS = 64;
/** Copies remembered as handed to every reachable replica, so a pass does not send them again. */
const PUSHED_MAX = 10_000;

type Outcome = 'dropped' | 'expired' | 'kept';

export interface RetireDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly retireDelayMs: number;
  /** Copies older than this (since their last change) are never handed over. */
  readonly tombstoneGraceMs: number;
  readonly isDown: (node: NodeId) => boolean;
  /** Merges `state` (encoded) into `node`'s copy of `key` (the Replicate RPC); rejects if it did not. */
  readonly handOver: (node: NodeId, key: string, state: Uint8Array) => Promise<void>;
  readonly now: () => number;
  readonly log: Logger;
}

export class PartitionRetirer {
  private seen: { version: number; sinceMs: number } | undefined;
  private running = false;
  private readonly pushed = new Map<string, { state: KeyState; to: string }>();
  dropped = 0;
  /** Copies dropped unhanded because they were older than the tombstone grace. */
  expired = 0;
  /**
   * Partitions this node no longer replicates that still held keys after the last pass (a replica
   * was unreachable); undefined until a pass over the current ring finished.
   */
  retiring: number | undefined;
  /** Keys those partitions still held after the last pass; undefined as `retiring`. */
  keysHeld: number | undefined;
  /** Keys handed over (or expired) since the current ring was first seen: the progress of a retirement. */
  keysHandedOver = 0;
  /** Passes in a row over the current ring that found nothing left to hand over. */
  private cleanPasses = 0;

  constructor(private readonly deps: RetireDeps) {}

  /** Passes in a row over ring `version` that found nothing left to hand over (0 for another ring). */
  cleanPassesOver(version: number): number {
    return this.seen?.version === version ? this.cleanPasses : 0;
  }

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
      this.keysHeld = undefined;
      this.keysHandedOver = 0;
      this.cleanPasses = 0;
    }
    if (now - this.seen.sinceMs < this.deps.retireDelayMs) return;
    let retiring = 0;
    let keysHeld = 0;
    for (const partition of this.notMine(state.ring)) {
      const kept = await this.retire(state.ring, partition);
      if (kept > 0) retiring++;
      keysHeld += kept;
    }
    if (this.deps.view.state?.ring.version !== state.ring.version) return;
    this.retiring = retiring;
    this.keysHeld = keysHeld;
    this.cleanPasses = retiring === 0 ? this.cleanPasses + 1 : 0;
  }

  /** A ring member does; a node out of the ring only if it left it through a leave. */
  private handsOver(state: ClusterState): boolean {
    if (state.ring.owners.includes(this.deps.self)) return true;
    const mine = (state.history ?? []).filter((r) => r.nodeId === this.deps.self);
    return mine.at(-1)?.kind === 'leave';
  }

  /** Hands the partition's keys over and drops them; how many are still held. */
  private async retire(ring: Ring, partition: number): Promise<number> {
    const replicas = replicasOf(ring, partition, this.deps.n).filter((node) => node !== this.deps.self);
    const counts: Record<Outcome, number> = { dropped: 0, expired: 0, kept: 0 };
    let afterKey: string | undefined;
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
      const outcomes = await Promise.all(page.map(([key, state]) => this.handOverKey(key, state, replicas)));
      for (const outcome of outcomes) counts[outcome]++;
    }
    this.report(ring, partition, replicas, counts);
    return counts.kept;
  }

  private async handOverKey(key: string, state: KeyState, replicas: NodeId[]): Promise<Outcome> {
    if (lastChangeMs(state) + this.deps.tombstoneGraceMs < this.deps.now()) {
      return (await this.drop(key, state)) ? 'expired' : 'kept';
    }
    if (replicas.length === 0) return 'kept';
    const targets = replicas.filter((node) => !this.deps.isDown(node));
    const to = targets.join(',');
    const last = this.pushed.get(key);
    const already = last !== undefined && last.to === to && sameState(last.state, state);
    if (!already) {
      const encoded = encodeState(state);
      const results = await Promise.allSettled(targets.map((node) => this.deps.handOver(node, key, encoded)));
      if (results.some((r) => r.status === 'rejected')) return 'kept';
      if (this.pushed.size >= PUSHED_MAX) this.pushed.clear();
      this.pushed.set(key, { state, to });
    }
    if (targets.length < replicas.length) return 'kept';
    return (await this.drop(key, state)) ? 'dropped' : 'kept';
  }

  private async drop(key: string, state: KeyState): Promise<boolean> {
    const went = await this.deps.store.dropIfUnchanged(key, state);
    if (went) this.pushed.delete(key);
    return went;
  }

  private report(ring: Ring, partition: number, replicas: NodeId[], counts: Record<Outcome, number>): void {
    const { dropped, expired, kept } = counts;
    this.dropped += dropped;
    this.expired += expired;
    this.keysHandedOver += dropped + expired;
    const at = { partition, ringVersion: ring.version };
    if (dropped > 0)
      this.deps.log.info(
        { ...at, keys: dropped },
        'handed over and dropped a partition this node no longer replicates',
      );
    if (expired > 0)
      this.deps.log.warn(
        { ...at, keys: expired, tombstoneGraceMs: this.deps.tombstoneGraceMs },
        'dropped copies older than the tombstone grace without handing them over: a collected delete may cover them',
      );
    if (kept > 0)
      this.deps.log.debug(
        { ...at, replicas, keys: kept },
        'keeping keys of a partition this node no longer replicates until its replicas take them',
      );
  }

  private notMine(ring: Ring): number[] {
    const out: number[] = [];
    for (let p = 0; p < ring.partitionCount; p++) {
      if (!replicasOf(ring, p, this.deps.n).includes(this.deps.self)) out.push(p);
    }
    return out;
  }
}
