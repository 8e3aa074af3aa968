/**
 * The receiving side of a ring change (paper 4.9): while a change is pending, this node pulls
 * every partition it gains from a node that already replicates it, page by page through the
 * background admission gate, merging each key (idempotent, so a page received twice is harmless)
 * and persisting a cursor after each chunk. When it holds all of them it adds itself to the
 * change's `done` list: the confirmation round that lets the change commit.
 */
import {
  type ClusterState,
  decodeState,
  MERKLE_BUCKETS,
  type NodeId,
  planTransfers,
  TesseraError,
  type Transfer,
} from '@tessera/core';
import type { BackgroundGate } from '../background/admission.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { locate } from '../storage/stored-keys.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { fetchTransferPage } from '../transport/transfer-stream.js';
import type { CursorStore } from './cursor.js';

const DECODE_LIMITS = { entriesMax: 1024, siblingsMax: 10_000 };

export interface TransferProgress {
  readonly partition: number;
  from: NodeId;
  readonly to: NodeId;
  keysSent: number;
  /** 0..1, estimated from the position of the last key received in the partition's hash order. */
  progress: number;
}

export interface ReceiverDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly cursors: CursorStore;
  readonly gate: BackgroundGate;
  readonly isDown: (node: NodeId) => boolean;
  readonly pageKeys: number;
  /** Admission cost of one page: at most the gate's minimum rate, so a page is always admitted eventually. */
  readonly pageCost: number;
  readonly timeoutMs: number;
  /** Wait this long after first seeing a change before pulling, so every coordinator writes to both rings. */
  readonly startDelayMs: number;
  readonly now: () => number;
  readonly log: Logger;
  /** Called after this node confirmed a change, to spread it quickly. */
  readonly changed: () => void;
  /** TLS and identity for the pulls (transport/credentials.ts). */
  readonly security?: PeerClientSecurity;
}

export class TransferReceiver {
  private readonly progress = new Map<number, TransferProgress>();
  private version = 0;
  private firstSeenMs = 0;
  private running = false;

  constructor(private readonly deps: ReceiverDeps) {}

  /** Inbound transfers of the pending change, with live progress. */
  transfers(): TransferProgress[] {
    return [...this.progress.values()].map((t) => ({ ...t }));
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.step();
    } finally {
      this.running = false;
    }
  }

  private async step(): Promise<void> {
    const state = this.deps.view.state;
    const pending = state?.pending;
    if (state === undefined || pending === undefined) {
      this.progress.clear();
      return;
    }
    const { self } = this.deps;
    if (this.version !== pending.next.version) {
      this.version = pending.next.version;
      this.firstSeenMs = this.deps.now();
      this.progress.clear();
      await this.deps.cursors.prune(this.version);
    }
    const mine = planTransfers(state.ring, pending.next, this.deps.n, unavailable(state)).transfers.filter(
      (t) => t.to === self,
    );
    for (const t of mine)
      if (!this.progress.has(t.partition))
        this.progress.set(t.partition, {
          partition: t.partition,
          from: t.sources[0] ?? '',
          to: self,
          keysSent: 0,
          progress: 0,
        });
    if (pending.done.includes(self) || this.deps.now() - this.firstSeenMs < this.deps.startDelayMs) return;
    for (const t of mine) if (!(await this.pull(t, state))) return;
    await this.deps.view.merge({
      ...state,
      pending: { ...pending, done: [...new Set([...pending.done, self])].sort() },
    });
    this.deps.log.info(
      { ringVersion: pending.next.version, partitions: mine.length },
      'received every partition of the ring change',
    );
    this.deps.changed();
  }

  /** Pulls one partition to its end; false if it must be continued later (deferred or no source answered). */
  private async pull(t: Transfer, state: ClusterState): Promise<boolean> {
    const shown = this.progress.get(t.partition)!;
    let cursor = await this.deps.cursors.read(this.version, t.partition);
    shown.keysSent = cursor.keysSent;
    if (cursor.done) {
      shown.progress = 1;
      return true;
    }
    const sources = t.sources.filter((s) => !this.deps.isDown(s));
    if (sources.length === 0) {
      // No replica left to copy from (paper 4.9 cannot help): anti-entropy must fill it in later.
      if (t.sources.length === 0) return this.finish(t.partition, cursor.keysSent);
      return false;
    }
    for (const source of sources) {
      const peer = state.members.find((m) => m.nodeId === source)?.peer;
      if (peer === undefined) continue;
      shown.from = source;
      try {
        for (;;) {
          if (!this.deps.gate.tryAcquire(this.deps.pageCost, 'transfer')) return false;
          const page = {
            partition: t.partition,
            keysMax: this.deps.pageKeys,
            ...(cursor.afterKey === undefined ? {} : { afterKey: cursor.afterKey }),
          };
          let received = 0;
          for await (const chunk of fetchTransferPage(peer, page, this.deps.timeoutMs, this.deps.security)) {
            for (const entry of chunk)
              await this.deps.store.merge(entry.key, decodeState(entry.state, DECODE_LIMITS));
            received += chunk.length;
            const last = chunk.at(-1);
            if (last === undefined) continue;
            cursor = { afterKey: last.key, keysSent: cursor.keysSent + chunk.length, done: false };
            await this.deps.cursors.write(this.version, t.partition, cursor);
            shown.keysSent = cursor.keysSent;
            shown.progress = (locate(state.ring.partitionCount, last.key).bucket + 1) / MERKLE_BUCKETS;
          }
          if (received < this.deps.pageKeys)
            return this.finish(t.partition, cursor.keysSent, cursor.afterKey);
        }
      } catch (err) {
        const code = TesseraError.is(err) ? err.code : 'INTERNAL';
        this.deps.log.warn(
          { partition: t.partition, source, code, err },
          'partition transfer interrupted; will resume',
        );
      }
    }
    return false;
  }

  private async finish(partition: number, keysSent: number, afterKey?: string): Promise<boolean> {
    await this.deps.cursors.write(this.version, partition, {
      keysSent,
      done: true,
      ...(afterKey === undefined ? {} : { afterKey }),
    });
    const shown = this.progress.get(partition);
    if (shown !== undefined) shown.progress = 1;
    return true;
  }
}

/** Nodes that cannot be a source: removed members. */
export function unavailable(state: ClusterState): Set<NodeId> {
  return new Set(state.members.filter((m) => m.status === 'removed').map((m) => m.nodeId));
}
