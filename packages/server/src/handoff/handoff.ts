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
import { isKeyFailure } from '../util/key-failure.js';
import { type HintPlacement, hintDestinations } from './destinations.js';

/** Refused hints remembered, at most, so each is warned of once. */
const REFUSALS_LOGGED_MAX = 10_000;

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
  /** Refused hints already warned of (bounded: cleared when full). */
  private readonly refusalsLogged = new Set<string>();

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
      const sent = await this.send(destinations, hint.key, hint.state);
      if (sent !== 'delivered') result.failed++;
      // A destination that cannot be reached stops the batch until the next round; a hint it
      // refuses (util/key-failure.ts) stays until it expires, and the others go on.
      if (sent === 'unreachable') return;
      if (sent === 'delivered' && (await hints.remove(target, hint))) result.delivered++;
    }
    if (batch.length > 0) log.info({ target, delivered: result.delivered }, 'hints handed off');
  }

  /**
   * Sends to every destination: 'delivered' once all of them took it; otherwise the hint stays for
   * the next round, and 'refused' says a destination refused this hint's state itself.
   */
  private async send(
    destinations: readonly NodeId[],
    key: string,
    state: KeyState,
  ): Promise<'delivered' | 'refused' | 'unreachable'> {
    const { peers, timeoutMs, log, placement } = this.options;
    const encoded = encodeState(state);
    for (const node of destinations) {
      try {
        if (this.isSelf(node)) {
          await placement!.mergeLocal(key, state);
          continue;
        }
        const client = peers.client(node);
        if (client === undefined) return 'unreachable';
        await client.replicate(key, encoded, timeoutMs);
        peers.markAlive(node);
      } catch (err) {
        if (isKeyFailure(err)) {
          this.refused(node, key, err);
          return 'refused';
        }
        if (TesseraError.is(err) && (err.code === 'PEER_UNAVAILABLE' || err.code === 'TIMEOUT'))
          peers.markFailed(node, err);
        else log.warn({ node, key, err }, 'hint delivery refused');
        return 'unreachable';
      }
    }
    return 'delivered';
  }

  /** Warns of a hint its destination refuses, once per key and destination (it is retried every round). */
  private refused(node: NodeId, key: string, err: TesseraError): void {
    const id = `${node}\u0000${key}`;
    if (this.refusalsLogged.has(id)) return;
    if (this.refusalsLogged.size >= REFUSALS_LOGGED_MAX) this.refusalsLogged.clear();
    this.refusalsLogged.add(id);
    this.options.log.warn(
      { node, key: key.slice(0, 200), code: err.code, err },
      'a hint is refused by its destination; it is kept, and retried, until it expires (hintTtlMs)',
    );
  }

  private isSelf(node: NodeId): boolean {
    return this.options.placement !== undefined && node === this.options.placement.self;
  }
}
