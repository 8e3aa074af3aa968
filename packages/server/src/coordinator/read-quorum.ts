/**
 * A quorum read (paper section 5): ask the first N healthy nodes of the key's preference list
 * (sloppy quorum), merge the first R answers, and once every replica answered (or failed), repair
 * the stale ones. A node that turns out unreachable during the read is stood in for by the next
 * healthy one, as in a write (fan-out.ts). Replicas that agree answer the same bytes: only
 * differing versions are decoded and merged (storage/stored-version.ts).
 */
import {
  type KeyState,
  type NodeId,
  primariesOf,
  sameState,
  sloppyTargets,
  type TesseraError,
} from '@tessera/core';
import { allAgree, mergeVersions, type StoredVersion } from '../storage/stored-version.js';
import type { Deadlines } from '../util/deadlines.js';
import { promised } from '../util/promised.js';
import { Collector, type ReplicaReply, standIn } from './quorum.js';
import type { Replicas } from './replicas.js';

export interface QuorumRead {
  readonly state: KeyState;
  /**
   * The replica that coordinates a write with this read's context (paper 6.4: one that holds what
   * the read saw): this node when it is a replica and its own copy is in the answer, so that the
   * write is not forwarded back out; else the replica that answered first.
   */
  readonly nextCoordinator: NodeId | undefined;
}

export interface ReadSettings {
  readonly n: number;
  readonly r: number;
  readonly timeoutMs: number;
  readonly peerTimeoutMs: number;
}

/**
 * Callbacks into one collector, not a promise chain per replica (as a write's fan-out): every get
 * runs this, and each promise with its reaction costs the coordinator.
 */
export function readQuorum(
  self: NodeId,
  replicas: Replicas,
  deadlines: Deadlines,
  preference: readonly NodeId[],
  key: string,
  settings: ReadSettings,
): Promise<QuorumRead> {
  return new Promise<QuorumRead>((resolve, reject) => {
    new QuorumReadRound(self, replicas, deadlines, preference, key, settings, resolve, reject).start();
  });
}

/** One read's state: a class rather than closures, since every get makes one. */
class QuorumReadRound {
  private own: StoredVersion | undefined;
  /** This node's own read answered (`own` stays undefined when it holds nothing of the key). */
  private ownAnswered = false;
  /** This node is one of the targets and its call (stand-ins included) has not settled. */
  private ownPending = false;
  /** Called once the own call settles, while the answer waits for it. */
  private ownSettled: (() => void) | undefined;
  private readonly peerTimeoutMs: number;

  constructor(
    private readonly self: NodeId,
    private readonly replicas: Replicas,
    private readonly deadlines: Deadlines,
    private readonly preference: readonly NodeId[],
    private readonly key: string,
    private readonly settings: ReadSettings,
    private readonly resolve: (read: QuorumRead) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.peerTimeoutMs = Math.min(settings.timeoutMs, settings.peerTimeoutMs);
  }

  start(): void {
    const { n, r, timeoutMs } = this.settings;
    const { targets, spares } = sloppyTargets(this.preference, n, (node) => this.replicas.isDown(node));
    const collector = new Collector<StoredVersion | undefined>(targets.length, r, 'read', finished(this));
    collector.settled = settled(this);
    collector.begin(this.deadlines, timeoutMs);
    for (const { node } of targets) this.ask(node, spares, collector);
  }

  /**
   * Reads at `node`, or at the spares standing in for it. Its reply is counted as the node's that
   * answered: a spare standing in holds the key as a fallback (read repair and `nextCoordinator`
   * look at primaries only).
   */
  private ask(node: NodeId, spares: NodeId[], collector: Collector<StoredVersion | undefined>): void {
    const isOwn = node === this.self;
    if (isOwn) this.ownPending = true;
    let last = node;
    standIn(
      node,
      undefined,
      spares,
      (at) => {
        last = at;
        // A throw from a read becomes its call's failure, never an exception in a reaction.
        return promised(() => this.read(at));
      },
      (value, at) => {
        if (isOwn) this.ownDone();
        collector.record({ node: at, ok: true, value });
      },
      (error: unknown) => {
        if (isOwn) this.ownDone();
        collector.record({ node: last, ok: false, error });
      },
    );
  }

  private read(node: NodeId): Promise<StoredVersion | undefined> {
    const version = this.replicas.readVersion(node, this.key, this.peerTimeoutMs, () => this.own);
    if (node !== this.self) return version;
    return version.then((mine) => {
      this.own = mine;
      this.ownAnswered = true;
      return mine;
    });
  }

  fail(error: TesseraError): void {
    this.reject(error);
  }

  private ownDone(): void {
    this.ownPending = false;
    this.ownSettled?.();
  }

  /**
   * This node's own copy, when it is a replica, is always part of the answer (it costs no message):
   * R others may answer first, fallbacks standing in that hold nothing of the key among them, and a
   * read through the node that just coordinated a write must not miss it. A local failure, or a
   * local read slower than a replica may be (peerTimeoutMs), leaves the answer to the others.
   */
  quorumMet(replies: ReplicaReply<StoredVersion | undefined>[]): void {
    if (this.ownAnswered || !this.ownPending) {
      this.answer(replies);
      return;
    }
    let answered = false;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      cancel();
      this.ownSettled = undefined;
      this.answer(replies);
    };
    const cancel = this.deadlines.add(this.peerTimeoutMs, answer);
    this.ownSettled = answer;
  }

  private answer(replies: ReplicaReply<StoredVersion | undefined>[]): void {
    // It runs inside a reply's reaction: what it throws must reach the caller, not be lost there.
    try {
      this.resolve(this.merged(replies));
    } catch (err) {
      this.reject(err);
    }
  }

  private merged(replies: ReplicaReply<StoredVersion | undefined>[]): QuorumRead {
    const { own, self } = this;
    // This node's version first: when all agree, the merge is its cached state (a frozen object a
    // hot key's reads share, so its context and body are made once: coordinator.ts, render.ts).
    const versions: (StoredVersion | undefined)[] = own === undefined ? [] : [own];
    for (const reply of replies) if (own === undefined || reply.value !== own) versions.push(reply.value);
    const state = mergeVersions(versions);
    const primaries = primariesOf(this.preference, this.settings.n);
    // A write with the context through this node is then coordinated here: forwarding it to a peer
    // that happened to answer first costs a peer call and that peer's coordination, for nothing.
    const nextCoordinator =
      this.ownAnswered && primaries.includes(self)
        ? self
        : replies.find((reply) => primaries.includes(reply.node))?.node;
    return { state, nextCoordinator };
  }

  repair(all: ReplicaReply<StoredVersion | undefined>[]): void {
    const primaries = primariesOf(this.preference, this.settings.n);
    const ok: ReplicaReply<StoredVersion | undefined>[] = [];
    for (const reply of all) if (reply.ok && primaries.includes(reply.node)) ok.push(reply);
    // Best effort, inside the last reply's reaction: a repair not sent is anti-entropy's to make.
    try {
      readRepair(this.replicas, this.key, ok, this.settings.peerTimeoutMs);
    } catch {}
  }
}

/*
 * The collector's two callbacks, made outside the round's methods. Made in `start`, a closure
 * shares its scope with the calls' closures there, and `pnpm bench:path get` then ran three times
 * the full collections (10 against 3 in three rounds) and cost more per get than the promise
 * chains this replaced.
 */
function finished(round: QuorumReadRound) {
  return (error: TesseraError | undefined, replies: ReplicaReply<StoredVersion | undefined>[]): void => {
    if (error === undefined) round.quorumMet(replies);
    else round.fail(error);
  };
}

function settled(round: QuorumReadRound) {
  return (all: ReplicaReply<StoredVersion | undefined>[]): void => round.repair(all);
}

/**
 * Paper section 5: once every replica answered (or failed), bring the stale ones up to date;
 * `ok` are the primaries' successful replies.
 */
function readRepair(
  replicas: Replicas,
  key: string,
  ok: ReplicaReply<StoredVersion | undefined>[],
  peerTimeoutMs: number,
): void {
  const versions = ok.map((r) => r.value);
  if (allAgree(versions)) return;
  const merged = mergeVersions(versions);
  if (merged.vv.length === 0) return;
  for (const reply of ok) {
    if (reply.value !== undefined && sameState(reply.value.state(), merged)) continue;
    // A replica with nothing needs no tombstone: anti-entropy treats the two alike (docs/consistency.md).
    if (reply.value === undefined && merged.siblings.length === 0) continue;
    replicas.repair(reply.node, key, merged, peerTimeoutMs);
  }
}
