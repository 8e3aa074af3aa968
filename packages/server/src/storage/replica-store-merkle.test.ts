import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyWrite,
  type CausalContext,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  type KeyState,
  MerkleTree,
  partitionOf,
  treeDigest,
  utf8,
} from '@tessera/core';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { StorageEngine } from './engine.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';

const Q = 4;
const KEYS = Array.from({ length: 12 }, (_, i) => `key-${i}`);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function levelEngine(): Promise<StorageEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-merkle-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return new LevelEngine(dir);
}

const engines: [string, () => Promise<StorageEngine>][] = [
  ['memory', async () => new MemoryEngine()],
  ['leveldb', levelEngine],
];

type Op =
  | { kind: 'put' | 'delete'; key: number; node: number; seen: boolean }
  | { kind: 'merge'; key: number; node: number; from: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('put' as const, 'delete' as const),
    key: fc.nat(KEYS.length - 1),
    node: fc.nat(2),
    seen: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('merge' as const),
    key: fc.nat(KEYS.length - 1),
    node: fc.nat(2),
    from: fc.nat(30),
  }),
);

/** Applies one random change through the store's public API, as the coordinator and peers do. */
async function apply(store: ReplicaStore, op: Op, history: KeyState[], nowMs: number): Promise<void> {
  const key = KEYS[op.key]!;
  const node = `n${op.node}`;
  if (op.kind === 'merge') {
    const base = history.length === 0 ? EMPTY_STATE : history[op.from % history.length]!;
    const remote = applyWrite(base, {
      actor: node,
      context: EMPTY_CONTEXT,
      value: utf8('9'),
      nowMs,
      vvEntriesMax: 8,
    });
    history.push(await store.merge(key, remote));
    return;
  }
  const value = op.kind === 'put' ? utf8(String(nowMs)) : undefined;
  const stamp = (s: KeyState): KeyState => {
    const context: CausalContext = op.seen || value === undefined ? { vv: s.vv, dots: [] } : EMPTY_CONTEXT;
    return applyWrite(s, { actor: node, context, value, nowMs, vvEntriesMax: 8 });
  };
  history.push(await store.update(key, stamp));
}

/** A write of value `i` at time `i` that saw nothing (a new sibling). */
function blindWrite(store: ReplicaStore, key: string, i: number): Promise<KeyState> {
  return store.update(key, (s) =>
    applyWrite(s, { actor: 'n1', context: EMPTY_CONTEXT, value: utf8(`${i}`), nowMs: i, vvEntriesMax: 8 }),
  );
}

/** Every partition's tree, built from scratch by a store that never saw a change. */
async function rebuilt(engine: StorageEngine): Promise<MerkleTree[]> {
  const fresh = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  return Promise.all(Array.from({ length: Q }, (_, p) => fresh.merkleTree(p)));
}

describe.each(engines)('ReplicaStore Merkle trees on %s', (_name, makeEngine) => {
  async function open(given?: StorageEngine): Promise<{ store: ReplicaStore; engine: StorageEngine }> {
    const engine = given ?? (await makeEngine());
    await engine.open();
    cleanups.push(() => engine.close());
    return { store: new ReplicaStore(engine, { partitionCount: Q, sync: false }), engine };
  }

  it('keeps every tree equal to a rebuild through random updates and merges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), fc.nat(3), async (ops, split) => {
        const { store, engine } = await open();
        const history: KeyState[] = [];
        // Some changes before the trees exist, the rest after.
        const before = ops.slice(0, split * 5);
        for (const [i, op] of before.entries()) await apply(store, op, history, 1000 + i);
        const trees = await Promise.all(Array.from({ length: Q }, (_, p) => store.merkleTree(p)));
        for (const [i, op] of ops.slice(before.length).entries()) await apply(store, op, history, 2000 + i);
        const fresh = await rebuilt(engine);
        expect(trees.map((tree, p) => tree.equals(fresh[p]!))).toEqual(fresh.map(() => true));
      }),
      { numRuns: 25 },
    );
  });

  it('drops a whole partition, leaving its keys gone, the other partitions intact and every tree right', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.nat(Q - 1),
        async (ops, victim) => {
          const { store, engine } = await open();
          const history: KeyState[] = [];
          for (const [i, op] of ops.entries()) await apply(store, op, history, 1000 + i);
          const trees = await Promise.all(Array.from({ length: Q }, (_, p) => store.merkleTree(p)));
          const others: string[] = [];
          for (let p = 0; p < Q; p++)
            for await (const [key] of store.scanPartition(p)) if (p !== victim) others.push(key);
          await store.dropPartition(victim, 3);
          const left: string[] = [];
          for (let p = 0; p < Q; p++) for await (const [key] of store.scanPartition(p)) left.push(key);
          expect(left.sort()).toEqual(others.sort());
          const fresh = await rebuilt(engine);
          expect(trees.map((tree, p) => tree.equals(fresh[p]!))).toEqual(fresh.map(() => true));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('builds a tree while writes to the same partition are in flight, and misses none of them', async () => {
    const { store, engine } = await open();
    const keys = Array.from({ length: 400 }, (_, i) => `w${i}`);
    const write = (key: string, i: number) => blindWrite(store, key, i);
    await Promise.all(keys.slice(0, 200).map(write));
    const building = Promise.all(Array.from({ length: Q }, (_, p) => store.merkleTree(p)));
    await Promise.all([...keys.slice(200).map(write), ...keys.slice(0, 100).map(write), building]);
    const trees = await building;
    const fresh = await rebuilt(engine);
    expect(trees.map((tree, p) => tree.equals(fresh[p]!))).toEqual(fresh.map(() => true));
    expect(store.merkleTreeCount).toBe(Q);
  });

  it('builds the trees of empty partitions while their first writes are in flight, and misses none of them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(40), fc.nat(40), async (early, late) => {
        const { store, engine } = await open();
        const write = (i: number) => blindWrite(store, `e${i}`, i);
        const writes = Array.from({ length: early }, (_, i) => write(i));
        const building = Promise.all(Array.from({ length: Q }, (_, p) => store.merkleTree(p)));
        writes.push(...Array.from({ length: late }, (_, i) => write(early + i)));
        const [trees] = await Promise.all([building, ...writes]);
        const fresh = await rebuilt(engine);
        expect(trees.map((tree, p) => tree.equals(fresh[p]!))).toEqual(fresh.map(() => true));
        expect(store.stored()).toMatchObject({ keys: early + late, partitionsCounted: Q });
      }),
      { numRuns: 20 },
    );
  });

  it('leaves tombstones out of the tree, so deleting a value changes it and collecting the tombstone does not', async () => {
    const { store } = await open();
    const key = 'gone';
    const p = partitionOf(Q, key);
    const tree = await store.merkleTree(p);
    const empty = new MerkleTree();
    const live = await store.update(key, (s) =>
      applyWrite(s, { actor: 'n1', context: EMPTY_CONTEXT, value: utf8('1'), nowMs: 1, vvEntriesMax: 8 }),
    );
    expect(treeDigest(live)).toBeDefined();
    expect(tree.equals(empty)).toBe(false);
    await store.update(key, (s) =>
      applyWrite(s, {
        actor: 'n1',
        context: { vv: s.vv, dots: [] },
        value: undefined,
        nowMs: 2,
        vvEntriesMax: 8,
      }),
    );
    expect(tree.equals(empty)).toBe(true);
    expect(await store.collectTombstone(key, () => true)).toBe(true);
    expect(tree.equals(empty)).toBe(true);
    expect(await store.read(key)).toBeUndefined();
  });
});
