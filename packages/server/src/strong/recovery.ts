/**
 * A wiped node's strong records (docs/transactions.md, "Wiped nodes"). A node that starts on an
 * empty data dir but is already an owner in the ring lost the promises and accepted registers it
 * gave: voting with nothing would let a stale majority pass. It refuses every strong vote until it
 * rebuilt each of its partitions from all the other primaries; the state is persisted, so a crash in
 * the middle resumes the rebuild.
 */
import {
  type ClusterState,
  livePending,
  type NodeId,
  partitionsOf,
  type Ring,
  replicasOf,
} from '@tessera/core';
import type { Logger } from '../logger.js';
import type { StorageEngine } from '../storage/engine.js';
import { type AdoptionDeps, recoverPartition } from './adoption.js';

/** Meta key of the persisted "rebuild before voting" flag (also set by `tessera restore --into-running-cluster`). */
export const FLAG_KEY = 'strong-recovering';
const encoder = new TextEncoder();

export class WipeRecovery {
  private active = false;
  private readonly done = new Set<number>();
  private running = false;

  constructor(
    private readonly engine: StorageEngine,
    private readonly deps: AdoptionDeps & {
      readonly n: number;
      readonly state: () => ClusterState;
      readonly log: Logger;
    },
  ) {}

  get recovering(): boolean {
    return this.active;
  }

  /** Reads the persisted flag: a rebuild that a crash interrupted goes on. */
  async open(): Promise<void> {
    this.active = (await this.engine.get('meta', FLAG_KEY)) !== undefined;
  }

  /**
   * Starts a rebuild (and persists that it must finish) when this node is an owner already, or
   * will be one once the pending ring change commits: it may have adopted its gained partitions
   * and reported done before the wipe, and would not adopt them again.
   */
  async beginIfOwner(self: NodeId): Promise<void> {
    const state = this.deps.state();
    const next = livePending(state.pending, state.ring)?.next;
    const owners = new Set([...state.ring.owners, ...(next?.owners ?? [])]);
    if (!owners.has(self) || owners.size < 2) return;
    await this.engine.batch([{ type: 'put', ns: 'meta', key: FLAG_KEY, value: encoder.encode('1') }], {
      sync: true,
    });
    this.active = true;
    this.deps.log.warn('started on an empty data dir as an owner: rebuilding strong records before voting');
  }

  /** One pass over the partitions not rebuilt yet; ends the rebuild once all are. */
  async tick(): Promise<void> {
    if (!this.active || this.running) return;
    this.running = true;
    try {
      const state = this.deps.state();
      const mine = partitionsOf(state.ring, this.deps.self).length === 0 ? [] : this.replicated(state.ring);
      for (const partition of mine) {
        if (this.done.has(partition)) continue;
        const replicas = replicasOf(state.ring, partition, this.deps.n);
        if (await recoverPartition(this.deps, partition, replicas)) this.done.add(partition);
      }
      // Partitions a pending change gives this node are rebuilt once it commits (from the new
      // primaries, which then hold what the old ones chose): until then, no voting.
      const next = livePending(state.pending, state.ring)?.next;
      const gains = next !== undefined && this.replicated(next).some((p) => !mine.includes(p));
      if (!gains && mine.every((p) => this.done.has(p))) {
        await this.engine.batch([{ type: 'del', ns: 'meta', key: FLAG_KEY }], { sync: true });
        this.active = false;
        this.deps.log.info({ partitions: mine.length }, 'strong records rebuilt; voting again');
      }
    } finally {
      this.running = false;
    }
  }

  /** The partitions this node is a primary of in `ring` (not only those it owns). */
  private replicated(ring: Ring): number[] {
    const out: number[] = [];
    for (let p = 0; p < ring.partitionCount; p++) {
      if (replicasOf(ring, p, this.deps.n).includes(this.deps.self)) out.push(p);
    }
    return out;
  }
}
