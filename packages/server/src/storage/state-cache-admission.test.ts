/**
 * The state cache's bookkeeping and admission, by example: what it counts, that it stays within
 * its bytes, that a key is cached from its second read (a scan does not evict hot keys), that a
 * full cache takes one in eight of those and a new hot set still takes over, and that what it
 * hands out cannot be changed by callers. state-cache.test.ts checks it against a model.
 */
import { applyWrite, EMPTY_CONTEXT, EMPTY_STATE, encodeState, type KeyState, utf8 } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { contextOf, KEYS, NOW_MS, Q } from '../../test/cache-model-kit.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';
import { ENTRY_OVERHEAD_BYTES, FULL_ADMIT_EVERY, StateCache } from './state-cache.js';

async function opened(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.open();
  return engine;
}

/** The KEYS whose read now counts as a hit (cached) or as a miss (not cached). */
async function keysWhere(store: ReplicaStore, counted: 'hits' | 'misses'): Promise<string[]> {
  const found: string[] = [];
  for (const k of KEYS) {
    const before = store.cacheStats()[counted];
    await store.read(k);
    if (store.cacheStats()[counted] > before) found.push(k);
  }
  return found;
}

/** Writes "v" over whatever the key holds. */
const write = (s: KeyState): KeyState =>
  applyWrite(s, { actor: 'n1', context: contextOf(s), value: utf8('"v"'), nowMs: NOW_MS, vvEntriesMax: 64 });

describe('state cache', () => {
  it('counts hits, misses and evictions, and stays within its bytes', async () => {
    const store = new ReplicaStore(await opened(), {
      partitionCount: Q,
      sync: false,
      stateCacheBytesMax: 2_000,
    });
    // Writes alone fill nothing (a key nobody reads stays out); reads fill, and evict.
    for (const k of KEYS) await store.update(k, write);
    expect(store.cacheStats().entries).toBe(0);
    // A key's first read is not cached (admission: doorkeeper.ts); its second is.
    for (const k of KEYS) await store.read(k);
    expect(store.cacheStats().entries).toBe(0);
    // Full after two or three keys: from then on one in FULL_ADMIT_EVERY admissions is cached.
    for (let round = 0; round < 4 * FULL_ADMIT_EVERY; round++) for (const k of KEYS) await store.read(k);
    const after = store.cacheStats();
    expect(after.evictions).toBeGreaterThan(0);
    expect(after.bytes).toBeLessThanOrEqual(2_000);
    const cached = await keysWhere(store, 'hits');
    const uncached = await keysWhere(store, 'misses');
    expect(cached.length).toBe(store.cacheStats().entries);
    expect(cached.length + uncached.length).toBe(KEYS.length);
    expect(cached.length > 0 && uncached.length > 0).toBe(true);
    const before = store.cacheStats();
    await store.update(cached[0]!, write); // cached: updated in place
    await store.read(cached[0]!); // just read and written: in the cache
    expect(store.cacheStats().hits).toBe(before.hits + 2); // the update's read, then this one
    await store.read(uncached[0]!);
    expect(store.cacheStats().misses).toBe(before.misses + 1);
    const off = new ReplicaStore(await opened(), {
      partitionCount: Q,
      sync: false,
      stateCacheBytesMax: 0,
    });
    await off.update('a', write);
    await off.read('a');
    expect(off.cacheStats()).toMatchObject({ hits: 0, misses: 0, entries: 0, bytes: 0 });
  });

  it('keeps hot keys through a scan of keys read once: a key is cached on its second read', async () => {
    const store = new ReplicaStore(await opened(), {
      partitionCount: Q,
      sync: false,
      stateCacheBytesMax: 20_000,
    });
    const hot = ['h0', 'h1', 'h2', 'h3'];
    const cold = Array.from({ length: 300 }, (_, i) => `cold${i}`);
    for (const k of [...hot, ...cold]) await store.update(k, write);
    for (const k of [...hot, ...hot]) await store.read(k);
    const { hits, entries } = store.cacheStats();
    expect(entries).toBe(hot.length);
    for (const k of cold) await store.read(k); // a scan: each key read once
    expect(store.cacheStats().entries).toBe(hot.length);
    for (const k of hot) expect(await store.read(k)).toBeDefined();
    expect(store.cacheStats().hits).toBe(hits + hot.length);
  });

  it('when full, caches one in eight keys it would admit, and a new hot set still takes over', async () => {
    const state = write(EMPTY_STATE);
    const value = encodeState(state);
    const read = (): Promise<Uint8Array> => Promise.resolve(value);
    // An entry grows once a read decodes it (as ReplicaStore's reads do), so a full cache can sit
    // below its bound by more than a fresh entry's size: here by half an entry.
    let cache = new StateCache(1024 * 1024);
    const load = async (k: string): Promise<void> => {
      cache.decoded(k, await cache.load(k, read), state);
    };
    await load('k999');
    await load('k999');
    const entryBytes = cache.stats().bytes;
    expect(entryBytes).toBeGreaterThan(2 * 'k000'.length + value.length + ENTRY_OVERHEAD_BYTES);
    cache = new StateCache(Math.floor(10.5 * entryBytes));
    const keys = (from: number, count: number): string[] =>
      Array.from({ length: count }, (_, i) => `k${String(from + i).padStart(3, '0')}`);
    const readTwice = async (ks: readonly string[]): Promise<void> => {
      for (const k of [...ks, ...ks]) await load(k);
    };
    await readTwice(keys(0, 10)); // fills it: each key admitted on its second read
    expect(cache.stats()).toMatchObject({ entries: 10, evictions: 0 });
    // Up to 80 keys the doorkeeper admits (fewer when two share its slot), into a full cache.
    await readTwice(keys(100, 80));
    expect(cache.stats().evictions).toBeGreaterThan(5);
    expect(cache.stats().evictions).toBeLessThanOrEqual(10);
    const hot = keys(200, 10);
    for (let round = 0; round < 40 * FULL_ADMIT_EVERY; round++) for (const k of hot) await load(k);
    const { hits } = cache.stats();
    for (const k of hot) await load(k);
    expect(cache.stats().hits - hits).toBe(hot.length);
  });

  it('hands out frozen states and copies of bytes, so no caller can change what it caches', async () => {
    const store = new ReplicaStore(await opened(), { partitionCount: Q, sync: false });
    await store.update('k', (s) =>
      applyWrite(s, {
        actor: 'n1',
        context: EMPTY_CONTEXT,
        value: utf8('"v"'),
        nowMs: NOW_MS,
        vvEntriesMax: 64,
      }),
    );
    await store.read('k'); // a key is cached from its second read on
    const state = (await store.read('k'))!;
    expect(
      Object.isFrozen(state) && Object.isFrozen(state.siblings) && Object.isFrozen(state.siblings[0]),
    ).toBe(true);
    const bytes = (await store.readEncoded('k'))!;
    bytes.fill(0);
    expect(await store.readEncoded('k')).toEqual(encodeState(state));
  });

  it('refuses a negative bound', () => {
    expect(() => new StateCache(-1)).toThrow(RangeError);
  });
});
