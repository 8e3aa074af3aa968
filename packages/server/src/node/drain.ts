/**
 * Draining a node (`tessera admin drain`, POST /v1/admin/drain): it refuses client requests with
 * NODE_DRAINING (and /health says `draining`, so load balancers stop sending), hands its hints
 * over, to their owners by hinted handoff or, for an owner still down in the second half of the
 * wait, to another live node that keeps them as hints for it, and once it holds none it exits cleanly (`exit`, the SIGTERM path).
 * The wait is bounded by a timeout: past it the node keeps refusing clients but does not exit;
 * draining again waits again, DELETE /v1/admin/drain resumes serving.
 */
import {
  encodeState,
  type NodeId,
  partitionOf,
  preferenceList,
  type Ring,
  TesseraError,
} from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Handoff } from '../handoff/handoff.js';
import type { Logger } from '../logger.js';
import type { HeldHints, HintStore } from '../storage/hint-store.js';

export type DrainPhase = 'serving' | 'draining' | 'drained' | 'timed-out';

export interface DrainView {
  readonly phase: DrainPhase;
  /** Hints this node holds now. */
  readonly hints: HeldHints;
  /** Hints held when the drain started. */
  readonly hintsAtStart?: number;
  /** Hints of owners that were down, given to another node to keep. */
  readonly redirected: number;
  readonly startedMs?: number;
  readonly timeoutMs?: number;
}

export interface DrainDeps {
  readonly self: NodeId;
  readonly hints: Pick<HintStore, 'totals' | 'targets' | 'take' | 'remove' | 'refuseNewWhile'>;
  readonly handoff: Pick<Handoff, 'runOnce'>;
  readonly peers: Pick<PeerDirectory, 'client' | 'isDown'>;
  readonly ring: () => Ring;
  /** Between two rounds of handing over. */
  readonly intervalMs: number;
  /** Deadline of one peer call. */
  readonly peerTimeoutMs: number;
  /** Hints redirected per target per round. */
  readonly batchMax: number;
  readonly now: () => number;
  readonly log: Logger;
  /** Stops the node and ends the process, as SIGTERM does. */
  readonly exit: () => void;
}

/** Bounds on the wait a client may ask for. */
export const DRAIN_TIMEOUT_MS_DEFAULT = 60_000;
export const DRAIN_TIMEOUT_MS_MAX = 3_600_000;
/** Between `drained` and the exit. */
const DRAIN_EXIT_GRACE_MS = 1_000;

export class Drain {
  private phase: DrainPhase = 'serving';
  private startedMs: number | undefined;
  private timeoutMs: number | undefined;
  private hintsAtStart: number | undefined;
  private redirected = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: DrainDeps) {
    // A draining node takes no new hints (it would keep them past its exit): writers pick another node.
    deps.hints.refuseNewWhile(() => this.refusal());
  }

  /** True from the start of a drain on: client requests are refused. */
  get draining(): boolean {
    return this.phase !== 'serving';
  }

  /** The answer to a client request while draining; undefined while serving. */
  refusal(): TesseraError | undefined {
    if (!this.draining) return undefined;
    return new TesseraError(
      'NODE_DRAINING',
      'This node is draining and will exit (tessera admin drain); send the request to another node of the cluster.',
    );
  }

  /** Starts (or restarts, after a timeout) the drain; a drain in progress is left as it is. */
  start(timeoutMs: number): DrainView {
    if (this.phase === 'draining' || this.phase === 'drained') return this.view();
    this.phase = 'draining';
    this.startedMs = this.deps.now();
    this.timeoutMs = timeoutMs;
    this.hintsAtStart = this.deps.hints.totals().count;
    this.deps.log.warn(
      { hints: this.hintsAtStart, timeoutMs },
      'draining: refusing clients, handing hints over',
    );
    this.schedule(0);
    return this.view();
  }

  /** Serves clients again (a drain that timed out, or one not finished). */
  cancel(): DrainView {
    if (this.phase === 'drained')
      throw new TesseraError('BAD_REQUEST', 'This node has drained and is exiting; start it again instead.');
    clearTimeout(this.timer);
    this.phase = 'serving';
    this.deps.log.warn('drain cancelled: serving clients again');
    return this.view();
  }

  view(): DrainView {
    return {
      phase: this.phase,
      hints: this.deps.hints.totals(),
      redirected: this.redirected,
      ...(this.hintsAtStart === undefined ? {} : { hintsAtStart: this.hintsAtStart }),
      ...(this.startedMs === undefined ? {} : { startedMs: this.startedMs }),
      ...(this.timeoutMs === undefined ? {} : { timeoutMs: this.timeoutMs }),
    };
  }

  /** The node is stopping: no more rounds. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.round(), delayMs);
  }

  private async round(): Promise<void> {
    if (this.phase !== 'draining' || this.stopped) return;
    try {
      await this.deps.handoff.runOnce();
      // An owner just back may still be suspected for a moment: redirect only in the second half.
      const elapsedMs = this.deps.now() - (this.startedMs ?? 0);
      if (elapsedMs >= (this.timeoutMs ?? 0) / 2) await this.redirectDownOwners();
    } catch (err) {
      this.deps.log.warn({ err }, 'draining: a round of handing hints over failed; retrying');
    }
    if (this.phase !== 'draining' || this.stopped) return;
    if (this.deps.hints.totals().count === 0) {
      this.phase = 'drained';
      this.deps.log.warn({ redirected: this.redirected }, 'drained: no hints left; stopping');
      // A moment for whoever follows the drain (GET /v1/admin/drain) to see it done.
      this.timer = setTimeout(() => this.deps.exit(), DRAIN_EXIT_GRACE_MS);
      return;
    }
    if (this.deps.now() - (this.startedMs ?? 0) >= (this.timeoutMs ?? 0)) {
      this.phase = 'timed-out';
      const left = this.deps.hints.totals().count;
      this.deps.log.warn(
        { hints: left },
        'drain timed out with hints left; still refusing clients, not exiting',
      );
      return;
    }
    this.schedule(this.deps.intervalMs);
  }

  /** Gives the hints of owners that are down to another live node, as hints for the same owner. */
  private async redirectDownOwners(): Promise<void> {
    const { hints, peers } = this.deps;
    for (const target of hints.targets().keys()) {
      if (!peers.isDown(target) && peers.client(target) !== undefined) continue;
      for (const hint of await hints.take(target, this.deps.batchMax)) {
        const keeper = this.keeperOf(hint.key, target);
        const client = keeper === undefined ? undefined : peers.client(keeper);
        if (client === undefined) return;
        await client.replicate(hint.key, encodeState(hint.state), this.deps.peerTimeoutMs, target);
        if (await hints.remove(target, hint)) this.redirected++;
      }
    }
  }

  /** The first node of the key's preference list that is neither this node, nor the owner, nor down. */
  private keeperOf(key: string, target: NodeId): NodeId | undefined {
    const ring = this.deps.ring();
    return preferenceList(ring, partitionOf(ring.partitionCount, key)).find(
      (node) =>
        node !== this.deps.self &&
        node !== target &&
        !this.deps.peers.isDown(node) &&
        this.deps.peers.client(node) !== undefined,
    );
  }
}
