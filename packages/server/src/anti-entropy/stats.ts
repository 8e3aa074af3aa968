/**
 * Anti-entropy counters since the node started, and the last exchange of each partition. Bounded:
 * one small record per partition (Q at most).
 */
import type { NodeId } from '@tessera/core';
import type { SyncLog } from './tombstone-gc.js';
import {
  type AntiEntropyStats,
  EXCHANGE_OUTCOMES,
  type ExchangeOutcome,
  type ExchangeResult,
  type PartitionSyncStatus,
} from './types.js';

interface LastExchange {
  readonly atMs: number;
  readonly peer?: NodeId;
  readonly outcome: ExchangeOutcome;
}

export class AntiEntropyTotals {
  private readonly exchanges = Object.fromEntries(EXCHANGE_OUTCOMES.map((o) => [o, 0])) as Record<
    ExchangeOutcome,
    number
  >;
  private keysPulled = 0;
  private keysPushed = 0;
  private keysFailed = 0;
  private bytesSent = 0;
  private bytesReceived = 0;
  private tombstonesCollected = 0;
  private readonly last = new Map<number, LastExchange>();

  add(result: ExchangeResult, nowMs: number): void {
    this.exchanges[result.outcome]++;
    this.keysPulled += result.keysPulled;
    this.keysPushed += result.keysPushed;
    this.keysFailed += result.keysFailed;
    this.bytesSent += result.bytesSent;
    this.bytesReceived += result.bytesReceived;
    if (result.partition !== undefined && result.outcome !== 'deferred') {
      const peer = result.peer === undefined ? {} : { peer: result.peer };
      this.last.set(result.partition, { atMs: nowMs, outcome: result.outcome, ...peer });
    }
  }

  collected(count: number): void {
    this.tombstonesCollected += count;
  }

  /** When the partition was last exchanged; undefined if never or if that exchange was unfinished. */
  lastExchangeMs(partition: number): number | undefined {
    const last = this.last.get(partition);
    return last === undefined || last.outcome === 'incomplete' ? undefined : last.atMs;
  }

  partition(partition: number, syncLog: SyncLog): PartitionSyncStatus {
    const last = this.last.get(partition);
    const inSyncMs = syncLog.snapshot(partition);
    if (last === undefined) return { partition, inSyncMs };
    const peer = last.peer === undefined ? {} : { lastPeer: last.peer };
    return { partition, lastExchangeMs: last.atMs, lastOutcome: last.outcome, ...peer, inSyncMs };
  }

  snapshot(treesHeld: number, partitions: readonly PartitionSyncStatus[]): AntiEntropyStats {
    return {
      exchanges: { ...this.exchanges },
      keysPulled: this.keysPulled,
      keysPushed: this.keysPushed,
      keysFailed: this.keysFailed,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      tombstonesCollected: this.tombstonesCollected,
      treesHeld,
      partitions,
    };
  }
}
