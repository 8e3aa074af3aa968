/**
 * Anti-entropy (paper 4.7): every `intervalMs` (jittered; at once after an exchange that found
 * work), pick a partition this node replicates (the one exchanged longest ago, an unfinished one
 * first), pick another of its replicas that is not down (the one in sync longest ago), and run one
 * exchange (exchange.ts). An exchange that ends in sync is recorded, and then the partition's
 * tombstones that are safe to drop are collected (tombstone-gc.ts). All work goes through the
 * admission gate (paper 6.5). `runOnce` drives it without timers, for tests and the simulation.
 */
import { type NodeId, type Ring, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { exchangePartition } from './exchange.js';
import { partitionsReplicatedBy, replicasOf } from './replicas-of.js';
import { AntiEntropyTotals } from './stats.js';
import { collectTombstones, SyncLog } from './tombstone-gc.js';
import {
  type AntiEntropyPeers,
  type AntiEntropyStats,
  type BackgroundGate,
  DEFAULT_EXCHANGE_LIMITS,
  type ExchangeLimits,
  type ExchangeResult,
  type TransferCounts,
} from './types.js';

export interface AntiEntropyOptions {
  readonly self: NodeId;
  /** N: replicas per key. */
  readonly n: number;
  readonly ring: () => Ring;
  readonly store: ReplicaStore;
  readonly peers: AntiEntropyPeers;
  readonly gate: BackgroundGate;
  /** Mean time between two exchanges started by this node. */
  readonly intervalMs: number;
  /** How long a tombstone is kept at least, from its delete (see tombstone-gc.ts). */
  readonly tombstoneGraceMs: number;
  readonly limits?: Partial<ExchangeLimits>;
  /** Tombstone index entries looked at per collection pass; default 1000. */
  readonly tombstonesPerPassMax?: number;
  readonly now: () => number;
  /** Uniform in [0, 1): picks among equal candidates and jitters the interval. */
  readonly random: () => number;
  readonly log: Logger;
}

/** What `runOnce` may be told to do instead of choosing. */
export interface ExchangeTarget {
  readonly partition: number;
  readonly peer?: NodeId;
}

export class AntiEntropy {
  private readonly limits: ExchangeLimits;
  private readonly syncLog = new SyncLog();
  private readonly totals = new AntiEntropyTotals();
  private readonly gcResume = new Map<number, string>();
  private mine: { ring: Ring; partitions: number[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly options: AntiEntropyOptions) {
    this.limits = { ...DEFAULT_EXCHANGE_LIMITS, ...options.limits };
  }

  /** Runs exchanges every `intervalMs` (jittered) until `stop`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /** Stops the timer and waits for an exchange in progress. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.queue.catch(() => {});
  }

  /** One exchange, of `target` or of a partition and peer chosen as `start` would. Never rejects. */
  runOnce(target?: ExchangeTarget): Promise<ExchangeResult> {
    const run = this.queue.then(() => this.run(target));
    this.queue = run.catch(() => {});
    return run;
  }

  /** One bounded tombstone collection pass over `partition`; the number collected. */
  async collect(partition: number): Promise<number> {
    const others = this.othersOf(this.options.ring(), partition);
    const horizonMs = this.syncLog.horizonMs(partition, others);
    if (horizonMs === undefined) return 0;
    const result = await collectTombstones(
      partition,
      horizonMs,
      this.options.now(),
      this.gcResume.get(partition),
      {
        store: this.options.store,
        gate: this.options.gate,
        graceMs: this.options.tombstoneGraceMs,
        entriesMax: this.options.tombstonesPerPassMax ?? 1_000,
      },
    );
    if (result.resumeAfter === undefined) this.gcResume.delete(partition);
    else this.gcResume.set(partition, result.resumeAfter);
    this.totals.collected(result.collected);
    return result.collected;
  }

  stats(): AntiEntropyStats {
    const partitions = this.partitions(this.options.ring()).map((p) =>
      this.totals.partition(p, this.syncLog),
    );
    return this.totals.snapshot(this.options.store.merkleTreeCount, partitions);
  }

  /**
   * The next exchange starts after about `intervalMs`, or at once after an exchange that repaired
   * keys: where one partition differed, others likely do too (a replica back from a long absence),
   * and the admission gate, not the interval, is then what paces the work.
   */
  private schedule(busy = false): void {
    if (!this.running) return;
    const delayMs = busy ? 0 : this.options.intervalMs * (0.5 + this.options.random());
    this.timer = setTimeout(() => {
      this.runOnce().then(
        (result) => this.schedule(result.outcome === 'repaired' || result.outcome === 'incomplete'),
        () => this.schedule(),
      );
    }, delayMs);
    this.timer.unref();
  }

  private async run(target: ExchangeTarget | undefined): Promise<ExchangeResult> {
    const startedMs = this.options.now();
    const ring = this.options.ring();
    const partition = target?.partition ?? this.pickPartition(ring);
    if (partition === undefined) return this.finish({ outcome: 'idle', startedMs });
    const others = this.othersOf(ring, partition);
    if (others.length === 0) {
      const collected = await this.collectQuietly(partition);
      return this.finish({ outcome: 'solo', partition, startedMs, tombstonesCollected: collected });
    }
    const peer = target?.peer ?? this.pickPeer(partition, others);
    const client = peer === undefined ? undefined : this.options.peers.client(peer);
    if (peer === undefined || client === undefined)
      return this.finish({ outcome: 'no-peer', partition, startedMs });
    if (!this.options.gate.tryAcquire(1, 'anti-entropy')) {
      return this.finish({ outcome: 'deferred', partition, peer, startedMs });
    }
    try {
      const report = await exchangePartition(partition, {
        partitionCount: ring.partitionCount,
        store: this.options.store,
        client,
        gate: this.options.gate,
        limits: this.limits,
      });
      this.options.peers.markAlive(peer);
      const { complete, keyFailure, ...counts } = report;
      if (keyFailure !== undefined) return this.keysFailed(partition, peer, startedMs, keyFailure, counts);
      if (!complete) return this.finish({ outcome: 'incomplete', partition, peer, startedMs, ...counts });
      this.syncLog.record(partition, peer, startedMs);
      const collected = await this.collectQuietly(partition);
      const outcome = counts.bucketsDiffering === 0 ? 'in-sync' : 'repaired';
      return this.finish({ outcome, partition, peer, startedMs, tombstonesCollected: collected, ...counts });
    } catch (err) {
      // Only an unreachable peer is marked down: a slow answer may be a peer building its tree.
      if (TesseraError.is(err) && err.code === 'PEER_UNAVAILABLE') this.options.peers.markFailed(peer, err);
      this.options.log.warn({ err, partition, peer }, 'anti-entropy exchange failed');
      const error = TesseraError.is(err) ? err.code : String(err);
      return this.finish({ outcome: 'failed', partition, peer, startedMs, error });
    }
  }

  /**
   * Keys that could not be repaired (the others were): reported as a failed exchange, so the
   * partition is not exchanged again at once for them, nor counted in sync.
   */
  private keysFailed(
    partition: number,
    peer: NodeId,
    startedMs: number,
    failure: { readonly key: string; readonly error: TesseraError },
    counts: TransferCounts,
  ): ExchangeResult {
    const { key, error } = failure;
    this.options.log.warn(
      {
        partition,
        peer,
        key: key.slice(0, 200),
        code: error.code,
        keysFailed: counts.keysFailed,
        err: error,
      },
      'anti-entropy could not repair keys; the other differing keys were repaired',
    );
    return this.finish({ outcome: 'failed', partition, peer, startedMs, error: error.code, ...counts });
  }

  private finish(
    partial: Partial<ExchangeResult> & Pick<ExchangeResult, 'outcome' | 'startedMs'>,
  ): ExchangeResult {
    const result: ExchangeResult = {
      bucketsDiffering: 0,
      keysDiffering: 0,
      keysPulled: 0,
      keysPushed: 0,
      keysFailed: 0,
      bytesSent: 0,
      bytesReceived: 0,
      tombstonesCollected: 0,
      ...partial,
    };
    this.totals.add(result, this.options.now());
    if (result.keysPulled + result.keysPushed > 0) {
      const { partition, peer, keysPulled, keysPushed, bytesSent } = result;
      this.options.log.info(
        { partition, peer, keysPulled, keysPushed, bytesSent },
        'anti-entropy repaired keys',
      );
    }
    return result;
  }

  private async collectQuietly(partition: number): Promise<number> {
    try {
      return await this.collect(partition);
    } catch (err) {
      this.options.log.warn({ err, partition }, 'tombstone collection failed');
      return 0;
    }
  }

  private partitions(ring: Ring): number[] {
    if (this.mine?.ring !== ring) {
      this.mine = { ring, partitions: partitionsReplicatedBy(ring, this.options.self, this.options.n) };
    }
    return this.mine.partitions;
  }

  private othersOf(ring: Ring, partition: number): NodeId[] {
    return replicasOf(ring, partition, this.options.n).filter((node) => node !== this.options.self);
  }

  /** The partition exchanged longest ago; one whose last exchange was unfinished counts as never. */
  private pickPartition(ring: Ring): number | undefined {
    return this.pickOldest(this.partitions(ring), (p) => this.totals.lastExchangeMs(p));
  }

  /** Among the reachable other replicas, the one in sync longest ago. */
  private pickPeer(partition: number, others: readonly NodeId[]): NodeId | undefined {
    const up = others.filter(
      (node) => !this.options.peers.isDown(node) && this.options.peers.client(node) !== undefined,
    );
    return this.pickOldest(up, (node) => this.syncLog.lastInSyncMs(partition, node));
  }

  private pickOldest<T>(candidates: readonly T[], age: (c: T) => number | undefined): T | undefined {
    let best: T[] = [];
    let bestMs = Number.POSITIVE_INFINITY;
    for (const c of candidates) {
      const ms = age(c) ?? Number.NEGATIVE_INFINITY;
      if (ms < bestMs) {
        best = [c];
        bestMs = ms;
      } else if (ms === bestMs) {
        best.push(c);
      }
    }
    return best[Math.floor(this.options.random() * best.length)];
  }
}
