/**
 * Hinted handoff (paper 4.6): this node periodically offers the hints it holds to their intended
 * owners; a hint is deleted only after the owner acknowledged it. Delivery is batched per target,
 * goes through the background admission gate, and stops at a target's first failure (it is down
 * again; the next round retries).
 */
import { encodeState, type NodeId, TesseraError } from '@tessera/core';
import type { BackgroundGate } from '../background/admission.js';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import type { HintStore } from '../storage/hint-store.js';

export interface HandoffOptions {
  readonly hints: HintStore;
  readonly peers: PeerDirectory;
  readonly gate: BackgroundGate;
  /** Hints sent to one target per round. */
  readonly batchMax: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /**
   * A hint older than this is dropped undelivered: it must not outlive tombstone collection (see
   * docs/consistency.md), or it could bring a deleted value back. Anti-entropy repairs the replica.
   */
  readonly hintTtlMs: number;
  readonly now: () => number;
  readonly log: Logger;
}

export interface HandoffStats {
  readonly expired: number;
  readonly delivered: number;
  readonly failed: number;
  readonly deferred: number;
  readonly rounds: number;
  readonly held: Record<NodeId, { count: number; bytes: number }>;
}

export interface HandoffRound {
  readonly expired: number;
  readonly delivered: number;
  readonly failed: number;
  readonly deferred: number;
}

export class Handoff {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<HandoffRound> | undefined;
  private totals = { expired: 0, delivered: 0, failed: 0, deferred: 0, rounds: 0 };

  constructor(private readonly options: HandoffOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.runOnce().catch(() => {}), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One delivery round over every target with hints; concurrent calls share the round. */
  runOnce(): Promise<HandoffRound> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  stats(): HandoffStats {
    return { ...this.totals, held: Object.fromEntries(this.options.hints.targets()) };
  }

  private async round(): Promise<HandoffRound> {
    const result = { expired: 0, delivered: 0, failed: 0, deferred: 0 };
    for (const target of this.options.hints.targets().keys()) {
      await this.deliverTo(target, result);
    }
    this.totals = {
      expired: this.totals.expired + result.expired,
      delivered: this.totals.delivered + result.delivered,
      failed: this.totals.failed + result.failed,
      deferred: this.totals.deferred + result.deferred,
      rounds: this.totals.rounds + 1,
    };
    return result;
  }

  private async deliverTo(
    target: NodeId,
    result: { expired: number; delivered: number; failed: number; deferred: number },
  ): Promise<void> {
    const { hints, peers, gate, batchMax, timeoutMs, log } = this.options;
    const client = peers.client(target);
    if (client === undefined) return; // not a member (yet): keep the hints.
    const batch = await hints.take(target, batchMax);
    for (const hint of batch) {
      if (this.options.now() - hint.createdMs > this.options.hintTtlMs) {
        if (await hints.remove(target, hint)) result.expired++;
        log.warn({ target, key: hint.key }, 'hint expired undelivered; anti-entropy will repair the replica');
        continue;
      }
      if (!gate.tryAcquire(1, 'handoff')) {
        result.deferred += batch.length - batch.indexOf(hint);
        return;
      }
      try {
        await client.replicate(hint.key, encodeState(hint.state), timeoutMs);
        peers.markAlive(target);
        if (await hints.remove(target, hint)) result.delivered++;
      } catch (err) {
        result.failed++;
        if (TesseraError.is(err) && (err.code === 'PEER_UNAVAILABLE' || err.code === 'TIMEOUT'))
          peers.markFailed(target, err);
        else log.warn({ target, key: hint.key, err }, 'hint delivery refused');
        return;
      }
    }
    if (batch.length > 0) log.info({ target, delivered: result.delivered }, 'hints handed off');
  }
}
