/**
 * The request coordinator (paper section 5): one flow per get, put or delete. Reads go to the
 * first N nodes of the key's preference list and answer after R replies, then repair stale
 * replicas; writes are coordinated by a preference-list node (this one, or forwarded), which
 * stamps the new version, stores it, sends it to the other replicas and answers after W acks,
 * with a receipt of the nodes that acknowledged by then (receipt.ts).
 */
import {
  type ActorLife,
  applyWrite,
  type CausalContext,
  contextAfterWrite,
  contextCaughtUp,
  decodeContext,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeContext,
  encodeState,
  type KeyState,
  latestDot,
  mergeStates,
  type NodeId,
  partitionOf,
  preferenceList,
  primariesOf,
  type Ring,
  TesseraError,
} from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import type { HintStore } from '../storage/hint-store.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { Deadlines } from '../util/deadlines.js';
import { promised } from '../util/promised.js';
import { checkValueBytes } from '../util/value-limit.js';
import { replicateWrite } from './fan-out.js';
import { forwardOrder, forwardWrite } from './forward.js';
import { type QuorumRead, readQuorum } from './read-quorum.js';
import { WriteAcks, type WriteResult } from './receipt.js';
import { Replicas } from './replicas.js';
import { replicateToNextRing } from './transition.js';

export interface CoordinatorSettings {
  readonly n: number;
  readonly r: number;
  readonly w: number;
  readonly valueBytesMax: number;
  readonly vvEntriesMax: number;
  readonly requestTimeoutMs: number;
  readonly peerTimeoutMs: number;
}

export interface CoordinatorDeps {
  readonly self: NodeId;
  readonly settings: CoordinatorSettings;
  readonly ring: () => Ring;
  /** The next ring while a ring change is pending (paper 4.9): writes reach its replicas too. */
  readonly nextRing?: () => Ring | undefined;
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly peers: PeerDirectory;
  readonly now: () => number;
  /** This node's incarnation: the actors that stamp its writes (core actors.ts, node/incarnation.ts). */
  readonly incarnation: ActorSource;
  /** Fault injection: a write that finds it armed dies mid fan-out (see `crashMidWrite`). */
  readonly crashMidWrite?: CrashMidWrite;
  readonly log: Logger;
}

/** Where actors come from: the current incarnation, renewed when a write was sent but not stored here. */
export interface ActorSource {
  readonly actors: ActorLife;
  /** Switches `actors` to a new incarnation before it returns; the promise settles once that is persisted. */
  renew(): Promise<void>;
}

/** The crash-mid-write fault (node/fault-switches.ts): `take` answers true once after arming. */
export interface CrashMidWrite {
  take(): boolean;
  /** Ends this process at once, as kill -9 does. */
  die(): void;
}

export interface ReadOptions {
  readonly r?: number;
  readonly timeoutMs?: number;
}

export interface WriteOptions {
  /** UTF-8 JSON bytes of the value; undefined for a delete. */
  readonly value: Uint8Array | undefined;
  readonly context?: string;
  readonly w?: number;
  readonly timeoutMs?: number;
  /** Set when another node forwarded the write here: coordinate it, never forward it again. */
  readonly forwarded?: boolean;
}

interface Placed {
  readonly ring: Ring;
  readonly preference: readonly NodeId[];
}

export interface ReadResult {
  readonly state: KeyState;
  readonly context: string;
}

export class Coordinator {
  private readonly replicas: Replicas;
  /** Every request's deadline, in one sweeper. */
  private readonly deadlines: Deadlines;
  /** Contexts issued for cached (frozen, shared) states: see `contextFor`. */
  private readonly issued = new WeakMap<
    KeyState,
    { readonly key: string; readonly nextCoordinator: NodeId | undefined; readonly context: string }
  >();
  /** Set by the crash-mid-write fault: nothing answers any more. */
  private dying = false;

  constructor(private readonly deps: CoordinatorDeps) {
    this.replicas = new Replicas(deps.self, deps.store, deps.hints, deps.peers);
    this.deadlines = new Deadlines(deps.now);
  }

  /** The key's whole preference list: its N replicas first, then the fallbacks in ring order. */
  preferenceFor(key: string): readonly NodeId[] {
    return this.placed(key).preference;
  }

  get(key: string, options: ReadOptions = {}): Promise<ReadResult> {
    // One reaction, not an async frame: every get runs this (util/promised.ts).
    return promised(() => {
      const r = this.quorum('r', options.r);
      const timeoutMs = options.timeoutMs ?? this.deps.settings.requestTimeoutMs;
      // The replica the read names coordinates the next write with this context (paper 5, 6.4).
      return this.readQuorum(key, r, timeoutMs).then(({ state, nextCoordinator }) => ({
        state,
        context: this.contextFor(key, state, nextCoordinator),
      }));
    });
  }

  /**
   * A read's context. A hot key read again and again, with its replicas agreeing, comes back as
   * the same cached state object (frozen): its context is made once per state and coordinator.
   */
  private contextFor(key: string, state: KeyState, nextCoordinator: NodeId | undefined): string {
    const memo = this.issued.get(state);
    if (memo !== undefined && memo.key === key && memo.nextCoordinator === nextCoordinator)
      return memo.context;
    const context = encodeContext(key, { vv: state.vv, dots: [], coordinator: nextCoordinator });
    if (Object.isFrozen(state)) this.issued.set(state, { key, nextCoordinator, context });
    return context;
  }

  /**
   * A put (value set) or delete (value undefined); answers with the new version's context and the
   * receipt of how it was stored (the coordinator's, through the Coordinate call when forwarded).
   */
  write(key: string, options: WriteOptions): Promise<WriteResult> {
    // Not an async frame: returning coordinateWrite's promise from one costs two more microtask
    // hops on every put (util/promised.ts).
    return promised(() => {
      const { settings } = this.deps;
      if (options.value !== undefined) checkValueBytes(options.value.length, settings.valueBytesMax);
      const context = options.context === undefined ? undefined : decodeContext(key, options.context);
      const w = this.quorum('w', options.w);
      const timeoutMs = options.timeoutMs ?? settings.requestTimeoutMs;
      const placed = this.placed(key);
      const replicas = primariesOf(placed.preference, settings.n);
      const { self, peers } = this.deps;
      const order =
        options.forwarded === true
          ? undefined
          : forwardOrder(self, context?.coordinator, replicas, (n) => peers.isDown(n));
      // No replica can coordinate, or this one is chosen: this node does (as a fallback when it is
      // not a replica: sloppy quorum, paper 4.6).
      const coordinate = (): Promise<WriteResult> =>
        this.coordinateWrite(key, placed, replicas, options.value, context, w, timeoutMs);
      if (order === undefined) return coordinate();
      const write = { key, w, timeoutMs, ...pick(options, 'value', 'context') };
      return forwardWrite(peers, this.deps.now, order, write).then((forwarded) => forwarded ?? coordinate());
    });
  }

  /** The key's preference list (`preferenceFor`), with the ring it was read from. */
  private placed(key: string): Placed {
    const ring = this.deps.ring();
    return { ring, preference: preferenceList(ring, partitionOf(ring.partitionCount, key)) };
  }

  private async coordinateWrite(
    key: string,
    placed: Placed,
    replicas: readonly NodeId[],
    value: Uint8Array | undefined,
    given: CausalContext | undefined,
    w: number,
    timeoutMs: number,
  ): Promise<WriteResult> {
    const deadline = this.deps.now() + timeoutMs;
    const context =
      given ?? (value === undefined ? await this.blindDeleteContext(key, timeoutMs) : EMPTY_CONTEXT);
    // A context that names nothing (a put without one) has nothing to catch up on: no await.
    if (context.vv.length > 0 || context.dots.length > 0)
      await this.catchUp(key, context, replicas, deadline);
    let actor: NodeId | undefined;
    // The ring as of now (after the catch-up's awaits): the acks and the fan-out go by the same
    // list. Rings are never changed in place: the same ring, the same list.
    const ring = this.deps.ring();
    const preference = ring === placed.ring ? placed.preference : this.preferenceFor(key);
    const acks = new WriteAcks(preference, this.deps.settings.n, w);
    // The new version goes to the other replicas as soon as it is stamped, while this node's own
    // copy is being written (paper section 5); that copy counts as an ack once it is on disk.
    let fanned: Promise<void> | undefined;
    const stamp = (s: KeyState): KeyState => {
      actor = this.deps.incarnation.actors.actorFor(s);
      return this.stamp(s, actor, value, context);
    };
    const local = this.deps.store.update(key, stamp, {
      beforeWrite: (next, encoded) => {
        fanned = this.fanOut(key, preference, next, encoded, w, deadline, local, acks);
        // It may fail (no quorum) before the local write ends and is awaited: never an unhandled rejection.
        fanned.catch(() => {});
        if (this.deps.crashMidWrite?.take() === true) this.crashMidWrite(fanned, this.deps.crashMidWrite);
      },
      notStored: (err) => this.sentButNotStored(err, actor),
    });
    const stored = await local.catch((err: unknown) => this.afterLocalFailure(err));
    await (fanned ?? this.fanOut(key, preference, stored, encodeState(stored), w, deadline, local, acks));
    // This replica's own copy is on disk: its ack, whether or not the fan-out counted it yet.
    if (replicas.includes(this.deps.self)) acks.add(this.deps.self);
    const written = value === undefined || actor === undefined ? undefined : latestDot(stored, actor);
    // Fields named, not spread: a spread of the context cost a put about 1 µs on the coordinator.
    const after = contextAfterWrite(context, written);
    const encoded = encodeContext(key, { vv: after.vv, dots: after.dots, coordinator: this.deps.self });
    return { context: encoded, stored: acks.receipt() };
  }

  /**
   * A version went out to the other replicas but is not stored here (the local write failed, or
   * the node dies mid-write): they may hold a dot this node does not, so its actors can no longer
   * vouch for this key. A new incarnation starts at once, under the key's lock, so no later write
   * (of this key, in this process) is stamped with that dot again; it is persisted after.
   */
  private sentButNotStored(err: unknown, actor: NodeId | undefined): void {
    // A failed group tells each of its changes: the first one's renewal covers the rest.
    if (actor !== undefined && !this.deps.incarnation.actors.owns(actor)) return;
    if (!this.dying)
      this.deps.log.error({ err }, 'local write failed after its fan-out: starting a new incarnation');
    this.deps.incarnation.renew().catch((e: unknown) => this.deps.log.error({ err: e }, 'renew failed'));
  }

  /** A local write failed; while the node dies mid-write, nothing answers any more. */
  private afterLocalFailure(err: unknown): Promise<never> {
    if (this.dying) return new Promise<never>(() => {});
    throw err;
  }

  /** Fault injection (kill -9 mid fan-out): die once the version reached the others, before storing it here. */
  private crashMidWrite(fanned: Promise<void>, crash: CrashMidWrite): never {
    this.dying = true;
    const die = () => crash.die();
    void fanned.then(die, die);
    // Abort the local write; the client gets no answer before the process is gone.
    throw new TesseraError('INTERNAL', 'Fault injection: this node dies in the middle of a write.');
  }

  /**
   * Sends a stamped version to the key's replicas, and once W acknowledged, to the next ring's
   * during a change (read then, so a change that began meanwhile is covered). One reaction, not
   * an async frame: every put runs this.
   */
  private fanOut(
    key: string,
    preference: readonly NodeId[],
    state: KeyState,
    encoded: Uint8Array,
    w: number,
    deadline: number,
    localWrite: Promise<unknown>,
    acks: WriteAcks,
  ): Promise<void> {
    const fan = {
      self: this.deps.self,
      key,
      preference,
      n: this.deps.settings.n,
      w,
      state,
      encoded,
      deadline,
      now: this.deps.now,
      localWrite,
      deadlines: this.deadlines,
      acks,
    };
    return replicateWrite(this.replicas, fan).then(() => {
      const next = this.deps.nextRing?.();
      if (next === undefined) return;
      return replicateToNextRing(this.replicas, this.deps.hints, fan, { ring: this.deps.ring(), next });
    });
  }

  /** The coordinator's update; the store refuses it if it would grow the key past siblingsMax. */
  private stamp(
    stored: KeyState,
    actor: NodeId,
    value: Uint8Array | undefined,
    context: CausalContext,
  ): KeyState {
    return applyWrite(stored, {
      actor,
      context,
      value,
      nowMs: this.deps.now(),
      vvEntriesMax: this.deps.settings.vvEntriesMax,
    });
  }

  /** A delete without context removes every version a quorum read sees right now. */
  private async blindDeleteContext(key: string, timeoutMs: number): Promise<CausalContext> {
    const { state } = await this.readQuorum(key, this.deps.settings.r, timeoutMs);
    if (state.siblings.length === 0) {
      throw new TesseraError('NOT_FOUND', `Key "${key}" has no value to delete.`);
    }
    return { vv: state.vv, dots: [] };
  }

  /**
   * A context may name versions this replica has not received yet (it answered late or was down);
   * fetch them from the other replicas first so the write supersedes exactly what the client saw.
   */
  private async catchUp(
    key: string,
    context: CausalContext,
    replicas: readonly NodeId[],
    deadline: number,
  ): Promise<void> {
    const local = (await this.deps.store.read(key)) ?? EMPTY_STATE;
    if (contextCaughtUp(local, context)) return;
    const others: NodeId[] = [];
    for (const n of replicas) if (n !== this.deps.self) others.push(n); // frozen: no filter (core primariesOf)
    const states = await Promise.allSettled(
      others.map((n) =>
        this.replicas.read(n, key, Math.min(this.remaining(deadline), this.deps.settings.peerTimeoutMs)),
      ),
    );
    const merged = states.reduce<KeyState>(
      (acc, s) => (s.status === 'fulfilled' && s.value !== undefined ? mergeStates(acc, s.value) : acc),
      EMPTY_STATE,
    );
    if (merged !== EMPTY_STATE) await this.deps.store.merge(key, merged);
  }

  private readQuorum(key: string, r: number, timeoutMs: number): Promise<QuorumRead> {
    const { n, peerTimeoutMs } = this.deps.settings;
    const settings = { n, r, timeoutMs, peerTimeoutMs };
    return readQuorum(this.deps.self, this.replicas, this.deadlines, this.preferenceFor(key), key, settings);
  }

  private quorum(kind: 'r' | 'w', requested: number | undefined): number {
    const { n } = this.deps.settings;
    const value = requested ?? this.deps.settings[kind];
    if (!Number.isInteger(value) || value < 1 || value > n) {
      throw new TesseraError(
        'INVALID_QUORUM',
        `${kind} must be a whole number from 1 to N (${n}); got ${value}.`,
        { [kind]: value, n },
      );
    }
    return value;
  }

  private remaining(deadline: number): number {
    return Math.max(1, deadline - this.deps.now());
  }
}

function pick<T extends object, K extends keyof T>(obj: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
