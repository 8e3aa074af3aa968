/**
 * One node of the simulated cluster: the real coordinator, replica store, hint store, handoff and
 * peer handler, over an in-memory engine that outlives crashes. Each incarnation sees the disk
 * through a fence that closes when it crashes, so code still running in a crashed incarnation can
 * no longer touch the disk, as after a real kill -9. A node may also restart on a fresh empty disk
 * under the same id (a wipe), stop cleanly, and run its clock ahead of or behind cluster time.
 */
import { type ClusterState, type NodeId, TesseraError } from '@tessera/core';
import { AntiEntropy } from '../../src/anti-entropy/anti-entropy.js';
import { MerkleResponder } from '../../src/anti-entropy/responder.js';
import type { BackgroundGate } from '../../src/background/admission.js';
import { ClusterView } from '../../src/cluster/cluster-view.js';
import { PeerDirectory } from '../../src/cluster/peers.js';
import { Coordinator, type CoordinatorSettings } from '../../src/coordinator/coordinator.js';
import { Handoff } from '../../src/handoff/handoff.js';
import { silentLogger } from '../../src/logger.js';
import { Incarnation as NodeIncarnation } from '../../src/node/incarnation.js';
import { PeerHandler } from '../../src/node/peer-handler.js';
import type { BatchOp, KeyRange, Namespace, StorageEngine, WriteOptions } from '../../src/storage/engine.js';
import { HintStore } from '../../src/storage/hint-store.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { ReplicaStore } from '../../src/storage/replica-store.js';
import type { SimNetwork } from './sim-network.js';

class FencedEngine implements StorageEngine {
  readonly kind = 'memory';
  fenced = false;

  constructor(private readonly disk: StorageEngine) {}

  private check(): void {
    if (this.fenced) throw new TesseraError('STORAGE_FAILURE', 'simulated: this incarnation crashed');
  }

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  async get(ns: Namespace, key: string): Promise<Uint8Array | undefined> {
    this.check();
    return this.disk.get(ns, key);
  }

  async batch(ops: readonly BatchOp[], options?: WriteOptions): Promise<void> {
    this.check();
    await this.disk.batch(ops, options);
  }

  async *iterate(ns: Namespace, range?: KeyRange): AsyncIterable<[string, Uint8Array]> {
    this.check();
    yield* this.disk.iterate(ns, range);
  }
}

const ALWAYS: BackgroundGate = { tryAcquire: () => true };
const log = silentLogger();

export interface Incarnation {
  readonly coordinator: Coordinator;
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly handoff: Handoff;
  readonly antiEntropy: AntiEntropy;
  readonly handler: PeerHandler;
  readonly engine: FencedEngine;
  /** The node's incarnation (its actors): kept over a clean stop, renewed after a crash or a wipe. */
  readonly life: NodeIncarnation;
}

export interface StartOptions {
  /** Start on a fresh empty disk, as a node whose data dir was lost. */
  readonly wipe?: boolean;
  /** This node's clock from now on: cluster time plus this (negative: behind). */
  readonly clockOffsetMs?: number;
}

export class SimNode {
  private disk = new MemoryEngine();
  current: Incarnation | undefined;
  /** A clean stop is under way: no new client operation is sent here. */
  stopping = false;
  clockOffsetMs = 0;
  /** The next write this node coordinates dies mid fan-out (the chaos suite's crash-write). */
  private crashArmed = false;
  /** Steps since a write took the armed crash (undefined: none did); see `tick`. */
  private dyingSteps: number | undefined;
  /** Rejects when the current incarnation crashes (see `track`). */
  private crashed: Promise<never> = new Promise<never>(() => {});
  private rejectCrashed: (error: Error) => void = () => {};
  /** Client operations and handoff rounds of the current incarnation still running. */
  private readonly ops = new Set<Promise<unknown>>();

  constructor(
    readonly id: NodeId,
    private readonly network: SimNetwork,
    private readonly state: ClusterState,
    private readonly settings: CoordinatorSettings,
    private readonly clusterNow: () => number,
    /** The simulation's seeded random source (so a seed replays exactly). */
    readonly random: () => number,
  ) {}

  /** This node's clock. */
  readonly now = (): number => this.clusterNow() + this.clockOffsetMs;

  get up(): boolean {
    return this.current !== undefined;
  }

  async start(options: StartOptions = {}): Promise<void> {
    if (this.current !== undefined) throw new Error(`${this.id} is already up`);
    if (options.wipe === true) this.disk = new MemoryEngine();
    this.clockOffsetMs = options.clockOffsetMs ?? this.clockOffsetMs;
    this.stopping = false;
    await this.disk.open();
    const engine = new FencedEngine(this.disk);
    const view = new ClusterView(engine);
    if ((await view.load(this.id)) === undefined) await view.set(this.state);
    // Members' peer addresses are "<nodeId>:2" in the simulation.
    const peers = new PeerDirectory(
      this.id,
      (address) => this.network.client(this.id, address.split(':')[0]!),
      50,
      this.now,
      log,
    );
    peers.sync(this.state);
    const store = new ReplicaStore(engine, {
      partitionCount: this.state.ring.partitionCount,
      sync: false,
      siblingsMax: 1000,
    });
    const hints = new HintStore(engine, {
      hintsMax: 10_000,
      hintBytesMax: 1 << 26,
      sync: false,
      now: this.now,
    });
    await hints.open();
    // Tags are drawn from the simulation's seeded source, so a seed replays exactly.
    const life = await NodeIncarnation.open(engine, { node: this.id, random: this.random });
    // Fault switches live in memory: a new process starts disarmed.
    this.crashArmed = false;
    this.dyingSteps = undefined;
    this.crashed = new Promise<never>((_, reject) => {
      this.rejectCrashed = reject;
    });
    this.crashed.catch(() => {});
    const crashMidWrite = {
      take: () => {
        const armed = this.crashArmed;
        this.crashArmed = false;
        if (armed) this.dyingSteps = 0;
        return armed;
      },
      // kill -9 once the crashed write's fan-out settled, unless this incarnation is gone already.
      die: () => {
        if (this.current?.engine === engine) this.crash();
      },
    };
    const coordinator = new Coordinator({
      self: this.id,
      settings: this.settings,
      ring: () => this.state.ring,
      store,
      hints,
      peers,
      now: this.now,
      incarnation: life,
      crashMidWrite,
      log,
    });
    const handler = new PeerHandler(this.id, view, log);
    const merkle = new MerkleResponder({
      self: this.id,
      n: this.settings.n,
      ring: () => this.state.ring,
      store,
    });
    handler.ready({ store, coordinator, hints, merkle });
    const handoff = new Handoff({
      hints,
      peers,
      gate: ALWAYS,
      batchMax: 64,
      intervalMs: 1_000,
      timeoutMs: 1_000,
      hintTtlMs: 1_000_000_000,
      now: this.now,
      log,
    });
    const antiEntropy = new AntiEntropy({
      self: this.id,
      n: this.settings.n,
      ring: () => this.state.ring,
      store,
      peers,
      gate: ALWAYS,
      intervalMs: 1_000,
      tombstoneGraceMs: 1_000_000_000,
      now: this.now,
      random: () => 0.5,
      log,
    });
    this.current = { coordinator, store, hints, handoff, antiEntropy, handler, engine, life };
    this.network.attach(this.id, handler);
  }

  /**
   * Counts `op` as work of the current incarnation, which a clean stop lets end first. It ends when
   * the incarnation crashes, as a request to a killed process does (a node dying mid-write never
   * answers it otherwise).
   */
  track<T>(op: Promise<T>): Promise<T> {
    const ended = Promise.race([op, this.crashed]);
    const tracked = ended.catch(() => {}).finally(() => this.ops.delete(tracked));
    this.ops.add(tracked);
    return ended;
  }

  /**
   * Arms the crash-mid-write fault: the next write this node coordinates goes out to the other
   * replicas, is not stored here, and the node is killed once that fan-out settled.
   */
  armCrashMidWrite(): void {
    this.crashArmed = true;
  }

  /** Heals its faults: disarmed; a node dying mid-write dies now (its deadline passes). */
  disarm(): void {
    this.crashArmed = false;
    if (this.dyingSteps !== undefined) this.crash();
  }

  /**
   * One step of the driver. A node dying mid-write is killed once the write's fan-out settled, or
   * at its deadline: the simulation's deadlines are too far off to pass, so after `deadlineSteps`.
   */
  tick(deadlineSteps: number): void {
    if (this.dyingSteps === undefined) return;
    this.dyingSteps++;
    if (this.dyingSteps >= deadlineSteps) this.crash();
  }

  /** kill -9: the incarnation stops touching the disk; the disk keeps what was written. */
  crash(): void {
    if (this.current === undefined) return;
    this.current.engine.fenced = true;
    this.dyingSteps = undefined;
    this.rejectCrashed(new TesseraError('PEER_UNAVAILABLE', 'simulated: the node crashed'));
    this.current = undefined;
    this.stopping = false;
    this.network.attach(this.id, undefined);
    this.network.crashed(this.id);
  }

  /**
   * A clean stop (SIGTERM): the client operations this node runs end, then it refuses new peer
   * calls and lets those under way end, then it closes. Nothing is cut off half way, unless the
   * node crashes meanwhile (then this does nothing more).
   */
  async stopCleanly(): Promise<void> {
    const incarnation = this.current;
    if (incarnation === undefined || this.stopping) return;
    this.stopping = true;
    await Promise.allSettled([...this.ops]);
    if (this.current !== incarnation) return;
    this.network.attach(this.id, undefined);
    await this.network.settled(this.id);
    if (this.current !== incarnation) return;
    await incarnation.life.closeCleanly();
    if (this.current !== incarnation) return;
    incarnation.engine.fenced = true;
    this.current = undefined;
    this.stopping = false;
  }

  /** The node's disk, read directly (for the checker). */
  async localState(key: string) {
    const store = new ReplicaStore(this.disk, {
      partitionCount: this.state.ring.partitionCount,
      sync: false,
    });
    return store.read(key);
  }
}
