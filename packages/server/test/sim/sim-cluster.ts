/**
 * The deterministic cluster simulation: five real nodes in one process over a simulated network,
 * driven by one seeded random source through client writes (blind and with a read's context),
 * reads, deletes with a read's context, message drops, lost replies, partitions, crashes (some in
 * the middle of a write's fan-out, as the chaos suite's crash-write makes them), clean stops and restarts — some on a wiped disk, some with the node's clock stepped — then healed.
 * `check` says whether every replica of every key converged, whether any acknowledged write was
 * lost, and whether any version an acknowledged write or delete replaced came back.
 */
import {
  type ClusterState,
  claim,
  createRing,
  type NodeId,
  partitionOf,
  preferenceList,
} from '@tessera/core';
import type { CoordinatorSettings } from '../../src/coordinator/coordinator.js';
import { checkKey, decodeValues, type Findings, type WriteRecord } from './sim-check.js';
import { SimNetwork, seededRandom } from './sim-network.js';
import { SimNode } from './sim-node.js';

const NODES = ['n0', 'n1', 'n2', 'n3', 'n4'];
const KEYS = ['cart-a', 'cart-b', 'cart-c', 'cart-d'];
/** Cluster time at the start: a real epoch, so clocks stepped back stay positive. */
const START_MS = Date.UTC(2026, 0, 1);
/** A restart steps the node's clock this often, to a random offset within ± this bound. */
const CLOCK_STEP_CHANCE = 0.3;
const CLOCK_STEP_MAX_MS = 5 * 60_000;
/** Steps a node dying mid-write lives at most (its write's deadline, in the simulation). */
const DYING_STEPS_MAX = 50;
/** A restart of the one node that may be wiped starts it on an empty disk this often. */
const WIPE_CHANCE = 0.5;
const SETTINGS: CoordinatorSettings = {
  n: 3,
  r: 2,
  w: 2,
  valueBytesMax: 1 << 20,
  vvEntriesMax: 32,
  requestTimeoutMs: 1_000_000_000,
  peerTimeoutMs: 1_000_000_000,
};

export interface SimReport {
  readonly seed: number;
  readonly acked: number;
  readonly writes: number;
  readonly lost: string[];
  readonly diverged: string[];
  readonly phantom: string[];
  readonly resurrected: string[];
  readonly wipes: number;
  readonly clockSteps: number;
  readonly cleanStops: number;
  /** Nodes armed to die in the middle of the next write they coordinate. */
  readonly crashesArmed: number;
  readonly delivered: number;
  readonly dropped: number;
}

export class SimCluster {
  private clockMs = START_MS;
  private readonly random: () => number;
  readonly network: SimNetwork;
  readonly nodes: SimNode[];
  private readonly writes: WriteRecord[] = [];
  private readonly lastRead = new Map<string, { context: string; values: string[] }>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly state: ClusterState;
  /**
   * The one node whose restarts may wipe its disk. An acknowledged write is on W = 2 disks, so
   * wiping one node never loses it legitimately; wiping two could (anti-entropy only runs at heal).
   */
  private readonly wipeable: SimNode;
  private readonly counts = { wipes: 0, clockSteps: 0, cleanStops: 0, crashesArmed: 0 };

  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
    this.network = new SimNetwork(this.random);
    let ring = createRing(16, NODES[0]!);
    for (const id of NODES.slice(1)) ring = claim(ring, id, SETTINGS.n);
    const members = NODES.map((nodeId) => ({
      nodeId,
      http: `${nodeId}:1`,
      peer: `${nodeId}:2`,
      status: 'member' as const,
      incarnation: 1,
    }));
    this.state = { clusterId: 'sim', ring, members };
    this.nodes = NODES.map(
      (id) => new SimNode(id, this.network, this.state, SETTINGS, () => this.clockMs, this.random),
    );
    this.wipeable = this.pick(this.nodes);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private spawn(task: Promise<void>): void {
    const tracked = task.catch(() => {}).finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  /** Lets every promise chain that can progress without a message delivery do so. */
  private flush(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  async run(steps: number, dropRate: number): Promise<void> {
    for (const node of this.nodes) await node.start();
    this.network.dropRate = dropRate;
    for (let i = 0; i < steps; i++) {
      this.clockMs += 1 + Math.floor(this.random() * 3);
      await this.randomEvent();
      await this.flush();
      for (const node of this.nodes) node.tick(DYING_STEPS_MAX);
    }
  }

  private async randomEvent(): Promise<void> {
    const r = this.random();
    const up = this.nodes.filter((n) => n.up && !n.stopping);
    const down = this.nodes.filter((n) => !n.up);
    if (r < 0.5) await this.network.step();
    else if (r < 0.72 && this.tasks.size < 8 && up.length > 0) this.clientOp(this.pick(up));
    else if (r < 0.74 && up.length > 1) this.pick(up).crash();
    else if (r < 0.78 && down.length > 0) await this.restart(this.pick(down));
    else if (r < 0.8) this.randomPartition();
    else if (r < 0.83) this.network.heal();
    else if (r < 0.88 && up.length > 0) this.handoffRound(this.pick(up));
    else if (r < 0.89 && up.length > 1) this.cleanStop(this.pick(up));
    else if (r < 0.9 && up.length > 1) this.armCrashMidWrite(this.pick(up));
  }

  /** Restarts a down node: the wipeable one sometimes on an empty disk; sometimes its clock steps. */
  private async restart(node: SimNode): Promise<void> {
    const wipe = node === this.wipeable && this.random() < WIPE_CHANCE;
    const step = this.random() < CLOCK_STEP_CHANCE;
    const clockOffsetMs = step ? Math.round((2 * this.random() - 1) * CLOCK_STEP_MAX_MS) : node.clockOffsetMs;
    if (wipe) this.counts.wipes++;
    if (step) this.counts.clockSteps++;
    await node.start({ wipe, clockOffsetMs });
  }

  private handoffRound(node: SimNode): void {
    this.spawn(node.track(node.current!.handoff.runOnce()).then(() => {}));
  }

  private armCrashMidWrite(node: SimNode): void {
    this.counts.crashesArmed++;
    node.armCrashMidWrite();
  }

  private cleanStop(node: SimNode): void {
    this.counts.cleanStops++;
    this.spawn(node.stopCleanly());
  }

  private randomPartition(): void {
    const side = NODES.filter(() => this.random() < 0.5);
    this.network.partition(
      side,
      NODES.filter((n) => !side.includes(n)),
    );
  }

  private clientOp(node: SimNode): void {
    const key = this.pick(KEYS);
    const incarnation = node.current!;
    const r = this.random();
    const read = this.lastRead.get(key);
    if (r < 0.35) {
      this.spawn(
        node.track(incarnation.coordinator.get(key)).then(({ state, context }) => {
          if (node.current === incarnation) this.lastRead.set(key, { context, values: decodeValues(state) });
        }),
      );
      return;
    }
    const useContext = read !== undefined && this.random() < 0.6;
    const isDelete = useContext && r > 0.9;
    const record: WriteRecord = {
      key,
      value: isDelete ? undefined : `${key}#${this.writes.length}`,
      saw: useContext ? read.values : [],
      acked: false,
    };
    this.writes.push(record);
    const value =
      record.value === undefined ? undefined : new TextEncoder().encode(JSON.stringify(record.value));
    const write = node.track(
      incarnation.coordinator.write(key, { value, ...(useContext ? { context: read.context } : {}) }),
    );
    this.spawn(
      write.then(() => {
        if (node.current === incarnation) record.acked = true;
      }),
    );
  }

  /**
   * Heals everything, then lets only background repair run — hinted handoff and Merkle
   * anti-entropy between every pair of replicas of every partition — and drains the network.
   * No client read runs, so read repair cannot mask a gap in them.
   */
  async heal(rounds: number): Promise<void> {
    this.network.dropRate = 0;
    this.network.heal();
    for (const node of this.nodes) node.disarm();
    await this.drain(); // clean stops under way end
    for (const node of this.nodes) if (!node.up) await node.start();
    await this.drain();
    const ring = this.state.ring;
    for (let round = 0; round < rounds; round++) {
      for (const node of this.nodes) this.spawn(node.current!.handoff.runOnce().then(() => {}));
      await this.drain();
      for (let partition = 0; partition < ring.partitionCount; partition++) {
        const replicas = preferenceList(ring, partition).slice(0, SETTINGS.n);
        for (const id of replicas) {
          for (const peer of replicas) {
            if (peer === id) continue;
            const ae = this.nodes.find((n) => n.id === id)!.current!.antiEntropy;
            this.spawn(ae.runOnce({ partition, peer }).then(() => {}));
          }
        }
        await this.drain();
      }
    }
  }

  private async drain(): Promise<void> {
    for (let i = 0; i < 100_000 && (this.network.inFlight > 0 || this.tasks.size > 0); i++) {
      await this.network.step();
      await this.flush();
      for (const node of this.nodes) node.tick(DYING_STEPS_MAX);
    }
  }

  async check(): Promise<SimReport> {
    const found: Findings = { lost: [], diverged: [], phantom: [], resurrected: [] };
    for (const key of KEYS) await this.checkKey(key, found);
    return {
      seed: this.seed,
      acked: this.writes.filter((w) => w.acked).length,
      writes: this.writes.length,
      ...found,
      ...this.counts,
      delivered: this.network.delivered,
      dropped: this.network.dropped,
    };
  }

  private async checkKey(key: string, found: Findings): Promise<void> {
    const { ring } = this.state;
    const primaries = preferenceList(ring, partitionOf(ring.partitionCount, key)).slice(0, SETTINGS.n);
    const states = await Promise.all(
      primaries.map((id) => this.nodes.find((n) => n.id === id)!.localState(key)),
    );
    checkKey(key, states, this.writes, found);
  }
}

export type { NodeId };
