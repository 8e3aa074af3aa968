/**
 * For the anti-entropy tests (src/anti-entropy/*.test.ts): a few in-process replicas on
 * MemoryEngines, one AntiEntropy service each, a shared fake clock, and writes as a coordinator
 * makes them.
 */
import {
  applyWrite,
  EMPTY_CONTEXT,
  type KeyState,
  type NodeId,
  partitionOf,
  type Ring,
  sameState,
  utf8,
} from '@tessera/core';
import { AntiEntropy } from '../../src/anti-entropy/anti-entropy.js';
import { MerkleResponder } from '../../src/anti-entropy/responder.js';
import type { BackgroundGate, ExchangeLimits, ExchangeResult } from '../../src/anti-entropy/types.js';
import { silentLogger } from '../../src/logger.js';
import { MemoryEngine } from '../../src/storage/memory-engine.js';
import { ReplicaStore } from '../../src/storage/replica-store.js';
import { InProcessNetwork } from './in-process.js';

export const Q = 8;
export const GRACE_MS = 10_000;
export const ALLOW: BackgroundGate = { tryAcquire: () => true };

export interface TestNode {
  readonly id: NodeId;
  readonly store: ReplicaStore;
  readonly ae: AntiEntropy;
  readonly failed: NodeId[];
}

export interface TestCluster {
  readonly net: InProcessNetwork;
  readonly nodes: Map<NodeId, TestNode>;
  readonly clock: { ms: number };
  node(id: NodeId): TestNode;
}

export interface ClusterOptions {
  readonly ids?: readonly NodeId[];
  readonly ring?: Ring;
  readonly n?: number;
  readonly gate?: BackgroundGate;
  readonly limits?: Partial<ExchangeLimits>;
}

/** A deterministic random source (LCG), so runs replay exactly. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function testCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const ids = options.ids ?? ['a', 'b', 'c'];
  const ring = options.ring ?? {
    partitionCount: Q,
    owners: Array.from({ length: Q }, (_, p) => ids[p % ids.length]!),
    version: 1,
  };
  const n = options.n ?? 3;
  const net = new InProcessNetwork();
  const clock = { ms: 1_000 };
  const nodes = new Map<NodeId, TestNode>();
  for (const [i, id] of ids.entries()) {
    const engine = new MemoryEngine();
    await engine.open();
    const store = new ReplicaStore(engine, {
      partitionCount: ring.partitionCount,
      sync: false,
      now: () => clock.ms,
    });
    net.add(id, { store, responder: new MerkleResponder({ self: id, n, ring: () => ring, store }) });
    const peers = net.peersOf(id);
    const ae = new AntiEntropy({
      self: id,
      n,
      ring: () => ring,
      store,
      peers,
      gate: options.gate ?? ALLOW,
      intervalMs: 5,
      tombstoneGraceMs: GRACE_MS,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      now: () => clock.ms,
      random: seededRandom(i + 1),
      log: silentLogger(),
    });
    nodes.set(id, { id, store, ae, failed: peers.failed });
  }
  return { net, nodes, clock, node: (id) => nodes.get(id)! };
}

/** A put or delete coordinated by `at` (read-modify-write with what it holds), then replicated to `to`. */
export async function write(
  cluster: TestCluster,
  at: NodeId,
  key: string,
  value: string | undefined,
  to: readonly NodeId[] = [],
): Promise<KeyState> {
  const state = await cluster.node(at).store.update(key, (s) =>
    applyWrite(s, {
      actor: at,
      context: value === undefined ? { vv: s.vv, dots: [] } : EMPTY_CONTEXT,
      value: value === undefined ? undefined : utf8(JSON.stringify(value)),
      nowMs: cluster.clock.ms,
      vvEntriesMax: 16,
    }),
  );
  for (const id of to) await cluster.node(id).store.merge(key, state);
  return state;
}

/** Runs exchanges of every partition from `from` with every other node until a round finds all in sync. */
export async function syncFrom(
  cluster: TestCluster,
  from: NodeId,
  roundsMax = 20,
): Promise<ExchangeResult[]> {
  const results: ExchangeResult[] = [];
  for (let round = 0; round < roundsMax; round++) {
    let allInSync = true;
    for (let partition = 0; partition < Q; partition++) {
      for (const peer of cluster.nodes.keys()) {
        if (peer === from) continue;
        const result = await cluster.node(from).ae.runOnce({ partition, peer });
        results.push(result);
        if (result.outcome !== 'in-sync') allInSync = false;
      }
    }
    if (allInSync) return results;
  }
  throw new Error(`node ${from} did not get in sync within ${roundsMax} rounds`);
}

/** Asserts every node holds the same live state (or none) for each key; returns the live keys. */
export async function liveStates(
  cluster: TestCluster,
  keys: readonly string[],
): Promise<Map<string, KeyState>> {
  const live = new Map<string, KeyState>();
  for (const key of keys) {
    const states = await Promise.all([...cluster.nodes.values()].map((node) => node.store.read(key)));
    const alive = states.map((s) => (s === undefined || s.siblings.length === 0 ? undefined : s));
    const first = alive[0];
    for (const s of alive) {
      const same = first === undefined ? s === undefined : s !== undefined && sameState(first, s);
      if (!same) throw new Error(`replicas disagree on ${key}`);
    }
    if (first !== undefined) live.set(key, first);
  }
  return live;
}

/** Keys that fall in `partition`. */
export function keysIn(partition: number, count: number, prefix = 'k'): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++)
    if (partitionOf(Q, `${prefix}${i}`) === partition) out.push(`${prefix}${i}`);
  return out;
}
