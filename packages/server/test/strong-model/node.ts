/**
 * One simulated node of the strong-key model test: the real server classes (acceptor records on
 * the in-memory engine, StrongAcceptor, Proposer, StrongKeys, Transactions, WipeRecovery,
 * StrongSweeper) rebuilt at every start, over the simulated network and the fake clock. A kill
 * freezes the old incarnation for good: its sends and sleeps never settle, its replies are lost,
 * and the clients waiting on it learn nothing. The engine outlives a kill (records are written
 * before an acceptor answers); a wipe replaces it with an empty one.
 */
import {
  type ClusterState,
  type NodeId,
  type StrongReply,
  type StrongRequest,
  TxnExpiry,
} from '@tessera/core';
import { silentLogger } from '../../src/logger.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { StrongAcceptor } from '../../src/strong/acceptor.js';
import type { adoptPartition } from '../../src/strong/adoption.js';
import { placementOf } from '../../src/strong/placement.js';
import { Proposer, type StrongSend } from '../../src/strong/proposer.js';
import { AcceptorRecords } from '../../src/strong/records.js';
import { WipeRecovery } from '../../src/strong/recovery.js';
import { StrongKeys } from '../../src/strong/strong-keys.js';
import { StrongSweeper } from '../../src/strong/sweeper.js';
import { Transactions } from '../../src/strong/transactions.js';
import type { Endpoint, Network, Scheduler } from './sim.js';

/** Replicas per key, and partitions of the ring. */
export const N = 3;
export const PARTITIONS = 8;
/** The largest value a strong key takes here (a node's default, config `valueBytesMax`). */
const VALUE_BYTES_MAX = 1024 * 1024;

export const TIMING = {
  phaseTimeoutMs: 150,
  txnTimeoutMs: 1_000,
  pullTimeoutMs: 600,
  requestTimeoutMs: 2_500,
} as const;

/** Test-only switches that break one part of the protocol (mutants.ts). */
export interface Hooks {
  /** Wraps each incarnation's acceptor. */
  readonly acceptor?: (real: StrongAcceptor, records: AcceptorRecords) => Pick<StrongAcceptor, 'handle'>;
  /** Replaces adoptPartition for a node that gains a partition in a ring change. */
  readonly adopt?: typeof adoptPartition;
  /** False, or false for this view: a wiped node votes at once, without rebuilding its records. */
  readonly rebuildAfterWipe?: boolean | ((view: ClusterState, self: NodeId) => boolean);
  /** Wraps each incarnation's single-key operations (transactions read through them too). */
  readonly keys?: (real: { keys: StrongKeys; proposer: Proposer }) => Pick<StrongKeys, 'get' | 'write'>;
}

export interface NodeEnv {
  readonly sim: Scheduler;
  readonly hooks: Hooks;
  /** Ids of the transactions begun without a token (`r-…`), for the final check of their records. */
  readonly txnIds: Set<string>;
  net?: Network;
}

export interface NodeParts {
  readonly records: AcceptorRecords;
  readonly acceptor: Pick<StrongAcceptor, 'handle'>;
  readonly proposer: Proposer;
  readonly keys: Pick<StrongKeys, 'get' | 'write'>;
  readonly txns: Transactions;
  readonly sweeper: StrongSweeper;
  readonly recovery: WipeRecovery;
  readonly send: StrongSend;
  /** Partitions of the pending ring change adopted by this incarnation (the receiver's memory). */
  readonly adopted: Set<number>;
  busy: boolean;
}

/** The node was down: the request was never sent. */
export class Down extends Error {}
/** The node died while handling the request: its outcome is unknown. */
export class Killed extends Error {}

const log = silentLogger();

export class SimNode implements Endpoint {
  up = false;
  incarnation = 0;
  clockOffsetMs = 0;
  /** Wiped and not restarted yet. */
  wipedDown = false;
  /** Wiped, and not seen rebuilt since (a kill in the middle of the rebuild does not end it). */
  private amnesiac = false;
  private engine = new MemoryEngine();
  private current: NodeParts | undefined;
  private readonly aborts = new Set<(err: unknown) => void>();

  constructor(
    readonly id: NodeId,
    public view: ClusterState,
    private readonly env: NodeEnv,
  ) {}

  readonly now = (): number => this.env.sim.now + this.clockOffsetMs;

  get parts(): NodeParts {
    if (this.current === undefined) throw new Error(`${this.id} never started`);
    return this.current;
  }

  get recovering(): boolean {
    if (this.amnesiac && this.up && !this.parts.recovery.recovering) this.amnesiac = false;
    return this.amnesiac;
  }

  handle(request: StrongRequest): Promise<StrongReply> {
    return this.parts.acceptor.handle(request);
  }

  async start(wiped: boolean): Promise<void> {
    await this.engine.open();
    const parts = this.build();
    await parts.recovery.open();
    const { rebuildAfterWipe: rebuild = true } = this.env.hooks;
    if (wiped && (typeof rebuild === 'function' ? rebuild(this.view, this.id) : rebuild))
      await parts.recovery.beginIfOwner(this.id);
    this.current = parts;
    this.wipedDown = false;
    this.up = true;
  }

  kill(): void {
    this.up = false;
    this.incarnation++;
    for (const abort of this.aborts) abort(new Killed(`${this.id} was killed`));
    this.aborts.clear();
  }

  wipe(): void {
    this.kill();
    this.engine = new MemoryEngine();
    this.wipedDown = true;
    this.amnesiac = true;
  }

  /** A client's request to this node, with the node's deadline; Down if not sent, Killed if lost. */
  call<T>(run: (parts: NodeParts, deadlineMs: number) => Promise<T>): Promise<T> {
    if (!this.up) return Promise.reject(new Down(`${this.id} is down`));
    const parts = this.parts;
    return new Promise<T>((resolve, reject) => {
      this.aborts.add(reject);
      run(parts, this.now() + TIMING.requestTimeoutMs).then(
        (value) => {
          this.aborts.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.aborts.delete(reject);
          reject(err);
        },
      );
    });
  }

  /** The node's timers: a wiped node's rebuild, the recovery sweep, and `more` (a ring change). */
  async background(more: (parts: NodeParts) => Promise<void>): Promise<void> {
    if (!this.up) return;
    const parts = this.parts;
    if (parts.busy) return;
    parts.busy = true;
    try {
      await parts.recovery.tick().catch(() => undefined);
      await parts.sweeper.tick();
      await more(parts);
    } finally {
      parts.busy = false;
    }
  }

  private build(): NodeParts {
    const { sim, hooks } = this.env;
    const incarnation = this.incarnation;
    const alive = () => this.up && this.incarnation === incarnation;
    const net = this.env.net;
    if (net === undefined) throw new Error('no network');
    const send: StrongSend = (to, request, timeoutMs) =>
      net.send(this.id, incarnation, to, request, timeoutMs);
    const sleep = (ms: number) =>
      new Promise<void>((resolve) =>
        sim.at(ms, () => {
          if (!alive()) return false;
          resolve();
          return true;
        }),
      );
    const state = () => this.view;
    const { now } = this;
    const random = sim.random;
    const records = new AcceptorRecords(this.engine, PARTITIONS, false);
    const pull = { self: this.id, records, send, timeoutMs: TIMING.pullTimeoutMs };
    const recovery = new WipeRecovery(this.engine, { ...pull, n: N, state, log });
    const real = new StrongAcceptor({
      self: this.id,
      n: N,
      state,
      records,
      recovering: () => recovery.recovering,
    });
    const acceptor = hooks.acceptor?.(real, records) ?? real;
    const { phaseTimeoutMs, txnTimeoutMs } = TIMING;
    // The proposer draws its ballot nonce from Math.random: seeded here, so a run replays.
    const mathRandom = Math.random;
    Math.random = random;
    let proposer: Proposer;
    try {
      proposer = new Proposer({ self: this.id, n: N, state, send, now, random, sleep, log, phaseTimeoutMs });
    } finally {
      Math.random = mathRandom;
    }
    // Simulated time without this node's clock offset: steps of its wall clock do not move it.
    const elapsedMs = () => this.env.sim.now;
    const expiry = new TxnExpiry({ now, elapsedMs, timeoutMs: txnTimeoutMs });
    const intents = { proposer, now, expiry };
    const randomId = () => sim.between(0, 2 ** 30).toString(36);
    const realKeys = new StrongKeys({ ...intents, sleep, random, randomId, valueBytesMax: VALUE_BYTES_MAX });
    const keys = hooks.keys?.({ keys: realKeys, proposer }) ?? realKeys;
    const txnId = () => {
      const id = randomId();
      this.env.txnIds.add(`r-${id}`);
      return id;
    };
    const txns = new Transactions({
      ...intents,
      keys,
      txnTimeoutMs,
      valueBytesMax: VALUE_BYTES_MAX,
      randomId: txnId,
    });
    const sweeper = new StrongSweeper({
      ...intents,
      self: this.id,
      records,
      timeoutMs: TIMING.pullTimeoutMs,
      primaries: (key) => placementOf(this.view, key, N).replicas,
      backupAfterMs: txnTimeoutMs,
      elapsedMs,
      log,
    });
    return {
      records,
      acceptor,
      proposer,
      keys,
      txns,
      sweeper,
      recovery,
      send,
      adopted: new Set(),
      busy: false,
    };
  }
}
