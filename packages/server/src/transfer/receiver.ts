/**
 * The receiving side of a ring change (paper 4.9): while a change is pending, this node pulls
 * every partition it gains from a node that already replicates it, page by page through the
 * background admission gate, merging each key (idempotent, so a page received twice is harmless)
 * and persisting a cursor after each chunk. When it holds all of them it adds itself to the
 * change's `done` list: the confirmation round that lets the change commit.
 */
import {
  type ClusterState,
  decodePeerState,
  MERKLE_BUCKETS,
  type NodeId,
  planTransfers,
  replicasOf,
  TesseraError,
  type Transfer,
} from '@tessera/core';
import type { BackgroundGate } from '../background/admission.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { locate } from '../storage/stored-keys.js';
import type { TransferEntry, TransferPage } from '../transport/peer-api.js';
import type { CursorStore, TransferCursor } from './cursor.js';

/**
 * A page pulled slowly is no sign of a dead source: only an unreachable one is marked down, so
 * foreground traffic is not routed around a node that is merely busy sending.
 */
const SOURCE_DOWN_ON = ['PEER_UNAVAILABLE'] as const;

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
  /**
   * The peers, as for every other peer call: pages come through `call`, so dial overrides, fault
   * injection and the failure detector apply to transfers too.
   */
  readonly peers: Pick<PeerDirectory, 'call'>;
  /**
   * Strong keys (docs/transactions.md, "Ring changes"): adopts a gained partition's acceptor
   * records from a majority of its current primaries; true once done. The change is confirmed only
   * after every gained partition was adopted. Absent: no strong keys (unit tests).
   */
  readonly adoptStrong?: (
    partition: number,
    nextRingVersion: number,
    replicas: readonly NodeId[],
  ) => Promise<boolean>;
}

export class TransferReceiver {
  private readonly progress = new Map<number, TransferProgress>();
  private version = 0;
  private firstSeenMs = 0;
  /** Partitions of the pending change whose strong records were adopted. */
  private readonly adopted = new Set<number>();
  private running = false;
  /** Keys merged and partitions finished by transfer since the node started (for /metrics). */
  readonly received = { keys: 0, partitions: 0 };

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
      this.adopted.clear();
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
    for (const t of mine) if (!(await this.adopt(t.partition, state))) return;
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

  /** Adopts a gained partition's strong records (once per change); false to try again later. */
  private async adopt(partition: number, state: ClusterState): Promise<boolean> {
    const { adoptStrong } = this.deps;
    if (adoptStrong === undefined || this.adopted.has(partition) || state.pending === undefined) return true;
    const replicas = replicasOf(state.ring, partition, this.deps.n);
    if (!(await adoptStrong(partition, state.pending.next.version, replicas))) {
      this.deps.log.info(
        { partition },
        'strong records not adopted yet: no majority of the primaries answered; will retry',
      );
      return false;
    }
    this.adopted.add(partition);
    return true;
  }

  /** Pulls one partition to its end; false if it must be continued later (deferred or no source answered). */
  private async pull(t: Transfer, state: ClusterState): Promise<boolean> {
    const shown = this.progress.get(t.partition)!;
    const at = { cursor: await this.deps.cursors.read(this.version, t.partition) };
    shown.keysSent = at.cursor.keysSent;
    if (at.cursor.done) {
      shown.progress = 1;
      return true;
    }
    const sources = t.sources.filter((s) => !this.deps.isDown(s));
    if (sources.length === 0) {
      // No replica left to copy from (paper 4.9 cannot help): anti-entropy must fill it in later.
      if (t.sources.length === 0) return this.finish(t.partition, at.cursor.keysSent);
      return false;
    }
    for (const source of sources) {
      shown.from = source;
      try {
        for (;;) {
          if (!this.deps.gate.tryAcquire(this.deps.pageCost, 'transfer')) return false;
          const received = await this.pullPage(source, t.partition, at, state.ring.partitionCount);
          const { keysSent, afterKey } = at.cursor;
          if (received < this.deps.pageKeys) return this.finish(t.partition, keysSent, afterKey);
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

  /** Pulls the page after `at.cursor` from `source`, advancing the cursor chunk by chunk; the keys received. */
  private async pullPage(
    source: NodeId,
    partition: number,
    at: { cursor: TransferCursor },
    partitionCount: number,
  ): Promise<number> {
    const page: TransferPage = {
      partition,
      keysMax: this.deps.pageKeys,
      ...(at.cursor.afterKey === undefined ? {} : { afterKey: at.cursor.afterKey }),
    };
    let received = 0;
    const onChunk = async (chunk: readonly TransferEntry[]): Promise<void> => {
      received += chunk.length;
      await this.mergeChunk(partition, chunk, at, partitionCount);
    };
    await this.deps.peers.call(
      source,
      (client) => client.transferPage(page, this.deps.timeoutMs, onChunk),
      SOURCE_DOWN_ON,
    );
    return received;
  }

  /** Merges a chunk (refused whole if one of its states is malformed), then moves the cursor past it. */
  private async mergeChunk(
    partition: number,
    chunk: readonly TransferEntry[],
    at: { cursor: TransferCursor },
    partitionCount: number,
  ): Promise<void> {
    const states = chunk.map((entry) => ({ key: entry.key, state: decodePeerState(entry.state) }));
    for (const { key, state } of states) {
      await this.deps.store.merge(key, state);
      this.received.keys++;
    }
    const last = chunk.at(-1);
    if (last === undefined) return;
    at.cursor = { afterKey: last.key, keysSent: at.cursor.keysSent + chunk.length, done: false };
    await this.deps.cursors.write(this.version, partition, at.cursor);
    const shown = this.progress.get(partition);
    if (shown === undefined) return;
    shown.keysSent = at.cursor.keysSent;
    shown.progress = (locate(partitionCount, last.key).bucket + 1) / MERKLE_BUCKETS;
  }

  private async finish(partition: number, keysSent: number, afterKey?: string): Promise<boolean> {
    await this.deps.cursors.write(this.version, partition, {
      keysSent,
      done: true,
      ...(afterKey === undefined ? {} : { afterKey }),
    });
    this.received.partitions++;
    const shown = this.progress.get(partition);
    if (shown !== undefined) shown.progress = 1;
    return true;
  }
}

/** Nodes that cannot be a source: removed members. */
export function unavailable(state: ClusterState): Set<NodeId> {
  return new Set(state.members.filter((m) => m.status === 'removed').map((m) => m.nodeId));
}
