/**
 * The deterministic cluster simulation: five real nodes in one process over a simulated network,
 * driven by one seeded random source through client writes, reads, deletes, message drops, lost
 * replies, partitions, crashes and restarts; then healed. `check` says whether every replica of
 * every key converged and whether any acknowledged write was lost.
 */
import {
  type ClusterState,
  claim,
  createRing,
  type KeyState,
  type NodeId,
  partitionOf,
  preferenceList,
  sameState,
} from '@tessera/core';
import type { CoordinatorSettings } from '../../src/coordinator/coordinator.js';
import { SimNetwork, seededRandom } from './sim-network.js';
import { SimNode } from './sim-node.js';

const NODES = ['n0', 'n1', 'n2', 'n3', 'n4'];
const KEYS = ['cart-a', 'cart-b', 'cart-c', 'cart-d'];
const SETTINGS: CoordinatorSettings = {
  n: 3,
  r: 2,
  w: 2,
  valueBytesMax: 1 << 20,
  vvEntriesMax: 32,
  requestTimeoutMs: 1_000_000_000,
  peerTimeoutMs: 1_000_000_000,
};

interface WriteRecord {
  readonly key: string;
  /** Undefined for a delete. */
  readonly value: string | undefined;
  /** Values of the read whose context the write carried: the write may legitimately replace them. */
  readonly saw: readonly string[];
  acked: boolean;
}

export interface SimReport {
  readonly seed: number;
  readonly acked: number;
  readonly writes: number;
  readonly lost: string[];
  readonly diverged: string[];
  readonly phantom: string[];
  readonly delivered: number;
  readonly dropped: number;
}

const decode = (s: KeyState): string[] =>
  s.siblings.map((x) => JSON.parse(new TextDecoder().decode(x.value)) as string);

export class SimCluster {
  private clockMs = 0;
  private readonly random: () => number;
  readonly network: SimNetwork;
  readonly nodes: SimNode[];
  private readonly writes: WriteRecord[] = [];
  private readonly lastRead = new Map<string, { context: string; values: string[] }>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly state: ClusterState;

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
    this.nodes = NODES.map((id) => new SimNode(id, this.network, this.state, SETTINGS, () => this.clockMs));
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
    }
  }

  private async randomEvent(): Promise<void> {
    const r = this.random();
    const up = this.nodes.filter((n) => n.up);
    const down = this.nodes.filter((n) => !n.up);
    if (r < 0.5) await this.network.step();
    else if (r < 0.72 && this.tasks.size < 8 && up.length > 0) this.clientOp(this.pick(up));
    else if (r < 0.74 && up.length > 1) this.pick(up).crash();
    else if (r < 0.78 && down.length > 0) await this.pick(down).start();
    else if (r < 0.8) this.randomPartition();
    else if (r < 0.83) this.network.heal();
    else if (r < 0.88 && up.length > 0)
      this.spawn(
        this.pick(up)
          .current!.handoff.runOnce()
          .then(() => {}),
      );
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
        incarnation.coordinator.get(key).then(({ state, context }) => {
          if (node.current === incarnation) this.lastRead.set(key, { context, values: decode(state) });
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
    const write = incarnation.coordinator.write(key, {
      value,
      ...(useContext ? { context: read.context } : {}),
    });
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
    }
  }

  async check(): Promise<SimReport> {
    const lost: string[] = [];
    const diverged: string[] = [];
    const phantom: string[] = [];
    const issued = new Set(this.writes.map((w) => w.value));
    for (const key of KEYS) {
      const primaries = preferenceList(
        this.state.ring,
        partitionOf(this.state.ring.partitionCount, key),
      ).slice(0, SETTINGS.n);
      const states = await Promise.all(
        primaries.map((id) => this.nodes.find((n) => n.id === id)!.localState(key)),
      );
      // A tombstone and no state at all both mean "no live value": anti-entropy does not copy
      // tombstones to replicas that hold nothing (docs/consistency.md), so compare live versions.
      const live = (s: KeyState | undefined): string =>
        (s?.siblings ?? [])
          .map((x) => `${x.dot.node}:${x.dot.counter}`)
          .sort()
          .join(',');
      const first = states.find((s) => s !== undefined && s.siblings.length > 0) ?? { vv: [], siblings: [] };
      if (!states.every((s) => live(s) === live(first))) diverged.push(key);
      if (first.siblings.length > 0 && !states.every((s) => s !== undefined && sameState(s, first)))
        diverged.push(key);
      const present = new Set(decode(first));
      const replaceable = new Set(this.writes.filter((w) => w.key === key).flatMap((w) => w.saw));
      for (const w of this.writes) {
        if (w.key !== key || !w.acked || w.value === undefined) continue;
        if (!present.has(w.value) && !replaceable.has(w.value)) lost.push(w.value);
      }
      for (const v of present) if (!issued.has(v)) phantom.push(v);
    }
    return {
      seed: this.seed,
      acked: this.writes.filter((w) => w.acked).length,
      writes: this.writes.length,
      lost,
      diverged,
      phantom,
      delivered: this.network.delivered,
      dropped: this.network.dropped,
    };
  }
}

export type { NodeId };
