/**
 * Hinted handoff (paper 4.6): this node periodically offers the hints it holds to their intended
 * owners; a hint is deleted only after the owner acknowledged it. Delivery is batched per target,
 * goes through the background admission gate, and stops at a target's first failure (it is down
 * again; the next round retries).
 */
import { encodeState, type KeyState, type NodeId, TesseraError } from '@tessera/core';
import type { BackgroundGate } from '../background/admission.js';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import type { HintStore } from '../storage/hint-store.js';
import { type HintPlacement, hintDestinations } from './destinations.js';

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
  /**
   * The ring, to send a hint whose target no longer replicates its key (it left) to the key's
   * replicas instead, and to the replicas a pending change adds (destinations.ts). Without it a hint
   * goes to its target only.
   */
  readonly placement?: HintPlacement & {
    readonly mergeLocal: (key: string, state: KeyState) => Promise<unknown>;
  };
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
    const { hints, gate, batchMax, log } = this.options;
    const batch = await hints.take(target, batchMax);
    for (const hint of batch) {
      if (this.options.now() - hint.createdMs > this.options.hintTtlMs) {
        if (await hints.remove(target, hint)) result.expired++;
        log.warn({ target, key: hint.key }, 'hint expired undelivered; anti-entropy will repair the replica');
        continue;
      }
      const destinations = hintDestinations(target, hint.key, this.options.placement);
      // A target that is not a member (yet) keeps its hints; one that left has them redirected.
      if (destinations.every((node) => this.options.peers.client(node) === undefined && !this.isSelf(node)))
        return;
      if (!gate.tryAcquire(1, 'handoff')) {
        result.deferred += batch.length - batch.indexOf(hint);
        return;
      }
      if (!(await this.send(destinations, hint.key, hint.state))) {
        result.failed++;
        return;
      }
      if (await hints.remove(target, hint)) result.delivered++;
    }
    if (batch.length > 0) log.info({ target, delivered: result.delivered }, 'hints handed off');
  }

  /** Sends to every destination; true once all of them took it (a failure leaves the hint for the next round). */
  private async send(destinations: readonly NodeId[], key: string, state: KeyState): Promise<boolean> {
    const { peers, timeoutMs, log, placement } = this.options;
    const encoded = encodeState(state);
    for (const node of destinations) {
      try {
        if (this.isSelf(node)) {
          await placement!.mergeLocal(key, state);
          continue;
        }
        const client = peers.client(node);
        if (client === undefined) return false;
        await client.replicate(key, encoded, timeoutMs);
        peers.markAlive(node);
      } catch (err) {
        if (TesseraError.is(err) && (err.code === 'PEER_UNAVAILABLE' || err.code === 'TIMEOUT'))
          peers.markFailed(node, err);
        else log.warn({ node, key, err }, 'hint delivery refused');
        return false;
      }
    }
    return true;
  }

  private isSelf(node: NodeId): boolean {
    return this.options.placement !== undefined && node === this.options.placement.self;
  }
}
