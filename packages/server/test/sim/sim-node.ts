/**
 * One node of the simulated cluster: the real coordinator, replica store, hint store, handoff and
 * peer handler, over an in-memory engine that outlives crashes. Each incarnation sees the disk
 * through a fence that closes when it crashes, so code still running in a crashed incarnation can
 * no longer touch the disk, as after a real kill -9.
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
import { DotCounter } from '../../src/node/dot-counter.js';
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
}

export class SimNode {
  private readonly disk = new MemoryEngine();
  current: Incarnation | undefined;

  constructor(
    readonly id: NodeId,
    private readonly network: SimNetwork,
    private readonly state: ClusterState,
    private readonly settings: CoordinatorSettings,
    private readonly now: () => number,
  ) {}

  get up(): boolean {
    return this.current !== undefined;
  }

  async start(): Promise<void> {
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
    const coordinator = new Coordinator({
      self: this.id,
      settings: this.settings,
      ring: () => this.state.ring,
      store,
      hints,
      peers,
      now: this.now,
      counters: await DotCounter.load(engine, this.now()),
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
    this.current = { coordinator, store, hints, handoff, antiEntropy, handler, engine };
    this.network.attach(this.id, handler);
  }

  /** kill -9: the incarnation stops touching the disk; the disk keeps what was written. */
  crash(): void {
    if (this.current === undefined) return;
    this.current.engine.fenced = true;
    this.current = undefined;
    this.network.attach(this.id, undefined);
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
