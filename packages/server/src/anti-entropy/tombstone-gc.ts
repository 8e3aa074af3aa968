/**
 * Tombstone garbage collection. A tombstone keeps a stale replica from bringing a deleted value
 * back (paper 4.4; Riak's and Cassandra's deleted-keys-return bug), so this replica drops it only when
 *   1. every other replica of its partition finished an exchange with this one that ended in sync
 *      and started after the key became a tombstone here: at that moment no replica held a live
 *      version of the key, since a live one would have differed from this replica's nothing
 *      (tombstones are not in the trees) and been repaired, i.e. deleted there too; and
 *   2. the grace period has passed since the delete (the later of `deletedAtMs`, stamped by the
 *      coordinator, and the time it became a tombstone here), so that what was still in flight
 *      then (a delayed Replicate, a hint) has arrived or been dropped.
 * Both are checked under the key's lock, so a write that revives the key in between wins.
 * See docs/consistency.md, "Deletes and tombstones".
 */
import type { NodeId } from '@tessera/core';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { BackgroundGate } from './types.js';

/** Per partition and other replica, when the last exchange that ended in sync started. */
export class SyncLog {
  private readonly log = new Map<number, Map<NodeId, number>>();

  record(partition: number, peer: NodeId, startedMs: number): void {
    let peers = this.log.get(partition);
    if (peers === undefined) {
      peers = new Map();
      this.log.set(partition, peers);
    }
    peers.set(peer, Math.max(peers.get(peer) ?? 0, startedMs));
  }

  /** The last in-sync exchange start with `peer`, if any. */
  lastInSyncMs(partition: number, peer: NodeId): number | undefined {
    return this.log.get(partition)?.get(peer);
  }

  /**
   * The time before which every tombstone of the partition is known to be the state of all
   * `others` (the partition's other replicas): the oldest of their last in-sync exchanges;
   * undefined if one of them has none; +Infinity if there are no others.
   */
  horizonMs(partition: number, others: readonly NodeId[]): number | undefined {
    let horizon = Number.POSITIVE_INFINITY;
    for (const peer of others) {
      const t = this.lastInSyncMs(partition, peer);
      if (t === undefined) return undefined;
      horizon = Math.min(horizon, t);
    }
    return horizon;
  }

  snapshot(partition: number): Record<NodeId, number> {
    return Object.fromEntries(this.log.get(partition) ?? []);
  }
}

export interface CollectOptions {
  readonly store: ReplicaStore;
  readonly gate: BackgroundGate;
  readonly graceMs: number;
  /** Index entries looked at per pass. */
  readonly entriesMax: number;
}

export interface CollectResult {
  readonly collected: number;
  /** Where the next pass of this partition starts; undefined to start over. */
  readonly resumeAfter: string | undefined;
}

/** One bounded pass over a partition's tombstone index, resuming after `resumeAfter`. */
export async function collectTombstones(
  partition: number,
  horizonMs: number,
  nowMs: number,
  resumeAfter: string | undefined,
  options: CollectOptions,
): Promise<CollectResult> {
  const { store, gate, graceMs, entriesMax } = options;
  const candidates: string[] = [];
  let last: string | undefined;
  let seen = 0;
  const scan =
    resumeAfter === undefined ? { limit: entriesMax } : { limit: entriesMax, afterKey: resumeAfter };
  for await (const [key, sinceMs] of store.scanTombstones(partition, scan)) {
    seen++;
    last = key;
    if (sinceMs < horizonMs && sinceMs + graceMs < nowMs) candidates.push(key);
  }
  let collected = 0;
  for (const key of candidates) {
    if (!gate.tryAcquire(1, 'anti-entropy')) return { collected, resumeAfter: resumeAfter };
    const gone = await store.collectTombstone(
      key,
      (state, sinceMs) => sinceMs < horizonMs && Math.max(state.deletedAtMs ?? 0, sinceMs) + graceMs < nowMs,
    );
    if (gone) collected++;
  }
  return { collected, resumeAfter: seen < entriesMax ? undefined : last };
}
