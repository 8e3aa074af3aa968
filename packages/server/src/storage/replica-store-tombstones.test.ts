import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyWrite,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeState,
  type KeyState,
  partitionOf,
  utf8,
} from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { StorageEngine } from './engine.js';
import { LAYOUT_KEY } from './layout.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';
import { dataKey, tombstoneKey } from './stored-keys.js';

const Q = 8;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function levelEngine(): Promise<StorageEngine> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-tombstones-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return new LevelEngine(dir);
}

const engines: [string, () => Promise<StorageEngine>][] = [
  ['memory', async () => new MemoryEngine()],
  ['leveldb', levelEngine],
];

const put = (s: KeyState, nowMs: number): KeyState =>
  applyWrite(s, { actor: 'n1', context: EMPTY_CONTEXT, value: utf8('"v"'), nowMs, vvEntriesMax: 8 });
const del = (s: KeyState, nowMs: number): KeyState =>
  applyWrite(s, { actor: 'n1', context: { vv: s.vv, dots: [] }, value: undefined, nowMs, vvEntriesMax: 8 });

async function tombstones(store: ReplicaStore, partition: number): Promise<[string, number][]> {
  const out: [string, number][] = [];
  for await (const entry of store.scanTombstones(partition)) out.push(entry);
  return out;
}

describe.each(engines)('ReplicaStore tombstones on %s', (_name, makeEngine) => {
  let clockMs = 0;
  async function open(): Promise<{ store: ReplicaStore; engine: StorageEngine }> {
    const engine = await makeEngine();
    await engine.open();
    cleanups.push(() => engine.close());
    clockMs = 100;
    const store = new ReplicaStore(engine, { partitionCount: Q, sync: false, now: () => clockMs });
    await store.open();
    return { store, engine };
  }

  it('indexes a key while it is a tombstone, with the time it became one here', async () => {
    const { store } = await open();
    const p = partitionOf(Q, 'k');
    await store.update('k', (s) => put(s, 1));
    expect(await tombstones(store, p)).toEqual([]);
    clockMs = 200;
    await store.update('k', (s) => del(s, 2));
    expect(await tombstones(store, p)).toEqual([['k', 200]]);
    clockMs = 300;
    // Still a tombstone (a later delete merged in): the time it became one stays.
    await store.merge('k', del(put(EMPTY_STATE, 3), 4));
    expect(await tombstones(store, p)).toEqual([['k', 200]]);
    await store.update('k', (s) => put(s, 5));
    expect(await tombstones(store, p)).toEqual([]);
    clockMs = 400;
    await store.update('k', (s) => del(s, 6));
    expect(await tombstones(store, p)).toEqual([['k', 400]]);
  });

  it('collects a tombstone only when the test agrees, and never a live key', async () => {
    const { store, engine } = await open();
    const p = partitionOf(Q, 'k');
    await store.update('k', (s) => del(put(s, 1), 2));
    const seen: [KeyState, number][] = [];
    expect(
      await store.collectTombstone('k', (state, sinceMs) => {
        seen.push([state, sinceMs]);
        return false;
      }),
    ).toBe(false);
    expect(seen).toEqual([[expect.objectContaining({ siblings: [], deletedAtMs: 2 }), 100]]);
    expect(await store.read('k')).toBeDefined();
    expect(await store.collectTombstone('k', () => true)).toBe(true);
    expect(await store.read('k')).toBeUndefined();
    expect(await tombstones(store, p)).toEqual([]);
    expect(await engine.get('meta', tombstoneKey(p, 'k'))).toBeUndefined();

    await store.update('live', (s) => put(s, 1));
    expect(await store.collectTombstone('live', () => true)).toBe(false);
    expect(await store.collectTombstone('absent', () => true)).toBe(false);
    expect(await store.read('live')).toBeDefined();
  });

  it('repairs a stale or missing index entry instead of collecting', async () => {
    const { store, engine } = await open();
    const p = partitionOf(Q, 'x');
    await engine.batch([{ type: 'put', ns: 'meta', key: tombstoneKey(p, 'x'), value: utf8('5') }]);
    expect(await store.collectTombstone('x', () => true)).toBe(false);
    expect(await tombstones(store, p)).toEqual([]);

    await store.update('x', (s) => del(put(s, 1), 2));
    await engine.batch([{ type: 'del', ns: 'meta', key: tombstoneKey(p, 'x') }]);
    clockMs = 900;
    expect(await store.collectTombstone('x', () => true)).toBe(false);
    expect(await tombstones(store, p)).toEqual([['x', 900]]);
    expect(await store.collectTombstone('x', () => true)).toBe(true);
  });

  it('moves layout 1 data to layout 2 once, indexing its tombstones', async () => {
    const engine = await makeEngine();
    await engine.open();
    cleanups.push(() => engine.close());
    const live = put(EMPTY_STATE, 1);
    const dead = del(put(EMPTY_STATE, 1), 2);
    const keys = Array.from({ length: 1500 }, (_, i) => `old-${i}`);
    const legacy = (key: string) => `${partitionOf(Q, key).toString(16).padStart(4, '0')}/${key}`;
    await engine.batch(
      keys.map((key, i) => ({
        type: 'put',
        ns: 'data',
        key: legacy(key),
        value: encodeState(i % 3 ? live : dead),
      })),
    );
    const store = new ReplicaStore(engine, { partitionCount: Q, sync: false, now: () => 77 });
    expect(await store.read('old-1')).toBeUndefined();
    await store.open();
    await store.open();
    expect(await store.read('old-1')).toEqual(live);
    expect(await store.read('old-0')).toEqual(dead);
    let count = 0;
    for await (const [stored] of engine.iterate('data')) {
      expect(stored).not.toBe(legacy(stored));
      count++;
    }
    expect(count).toBe(keys.length);
    const p = partitionOf(Q, 'old-0');
    const indexed = (await tombstones(store, p)).map(([k]) => k);
    expect(indexed).toContain('old-0');
    expect(indexed.every((k) => Number(k.slice(4)) % 3 === 0)).toBe(true);
    expect(await engine.get('data', dataKey(p, 0, 'never'))).toBeUndefined();
    expect(new TextDecoder().decode(await engine.get('meta', LAYOUT_KEY))).toBe('2');
  });

  it('refuses a data dir with a newer layout', async () => {
    const engine = await makeEngine();
    await engine.open();
    cleanups.push(() => engine.close());
    await engine.batch([{ type: 'put', ns: 'meta', key: LAYOUT_KEY, value: utf8('3') }]);
    const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
    await expect(store.open()).rejects.toThrow(/layout 3/);
  });
});
