import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyWrite,
  bucketOf,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeState,
  type KeyState,
  partitionOf,
  TesseraError,
  utf8,
} from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchOp, StorageEngine, WriteOptions } from './engine.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { ReplicaStore } from './replica-store.js';

const Q = 8;

function write(stored: KeyState, node: string, value: string, nowMs = 1000): KeyState {
  return applyWrite(stored, {
    actor: node,
    context: EMPTY_CONTEXT,
    value: utf8(value),
    nowMs,
    vvEntriesMax: 10,
  });
}

/** Counts the batches that reach the engine, and records whether each was synced. */
function counting(engine: StorageEngine): { engine: StorageEngine; batches: () => number; syncs: boolean[] } {
  let count = 0;
  const syncs: boolean[] = [];
  const wrapper: StorageEngine = {
    kind: engine.kind,
    open: () => engine.open(),
    close: () => engine.close(),
    get: (ns, key) => engine.get(ns, key),
    iterate: (ns, range) => engine.iterate(ns, range),
    batch: (ops: readonly BatchOp[], options?: WriteOptions) => {
      count++;
      syncs.push(options?.sync === true);
      return engine.batch(ops, options);
    },
  };
  return { engine: wrapper, batches: () => count, syncs };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function levelDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-replica-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const engines: [string, () => Promise<StorageEngine>][] = [
  ['memory', async () => new MemoryEngine()],
  ['leveldb', async () => new LevelEngine(await levelDir())],
];

describe.each(engines)('ReplicaStore on %s', (_name, makeEngine) => {
  async function open(): Promise<{ store: ReplicaStore; engine: StorageEngine; batches: () => number }> {
    const raw = await makeEngine();
    await raw.open();
    cleanups.push(() => raw.close());
    const { engine, batches } = counting(raw);
    return { store: new ReplicaStore(engine, { partitionCount: Q, sync: false }), engine: raw, batches };
  }

  it('reads a missing key as undefined', async () => {
    const { store } = await open();
    expect(await store.read('nope')).toBeUndefined();
    expect(await store.readEncoded('nope')).toBeUndefined();
  });

  it('stores encoded states under <partition hex>:<bucket hex>/<key> in the data namespace', async () => {
    const { store, engine } = await open();
    const state = await store.update('cart:7', (s) => write(s, 'n1', '{"items":[]}'));
    const partition = partitionOf(Q, 'cart:7').toString(16).padStart(4, '0');
    const bucket = bucketOf('cart:7').toString(16).padStart(3, '0');
    expect(await engine.get('data', `${partition}:${bucket}/cart:7`)).toEqual(encodeState(state));
    expect(await store.readEncoded('cart:7')).toEqual(encodeState(state));
    expect(await store.read('cart:7')).toEqual(state);
  });

  it('loses no update: 200 concurrent writes to one key leave 200 siblings', async () => {
    const { store } = await open();
    const writes = Array.from({ length: 200 }, (_, i) =>
      store.update('hot', (s) => write(s, 'n1', `"v${i}"`, i)),
    );
    await Promise.all(writes);
    const state = (await store.read('hot'))!;
    expect(state.siblings).toHaveLength(200);
    expect(new Set(state.siblings.map((s) => s.dot.counter)).size).toBe(200);
  });

  it('writes nothing when fn throws or changes nothing, and releases the key', async () => {
    const { store, batches } = await open();
    await expect(
      store.update('k', () => {
        throw new TesseraError('TOO_MANY_SIBLINGS', 'no');
      }),
    ).rejects.toThrow('no');
    expect(await store.read('k')).toBeUndefined();
    await store.update('k', (s) => s);
    expect(batches()).toBe(0);
    await store.update('k', (s) => write(s, 'n1', '1'));
    expect(batches()).toBe(1);
  });

  it('merges idempotently, and a repeated merge writes nothing', async () => {
    const { store, batches } = await open();
    await store.update('k', (s) => write(s, 'n1', '"local"'));
    const remote = write(write(EMPTY_STATE, 'n2', '"a"'), 'n2', '"b"');
    const once = await store.merge('k', remote);
    expect(once.siblings).toHaveLength(3);
    const writesBefore = batches();
    const twice = await store.merge('k', remote);
    expect(twice).toEqual(once);
    expect(await store.read('k')).toEqual(once);
    expect(batches()).toBe(writesBefore);
  });

  it('stores a received state as the bytes it came in, and a merge with a held key as its encoding', async () => {
    const { store, engine } = await open();
    const remote = write(EMPTY_STATE, 'n2', '"a"');
    // Bytes a peer could send for the same state that its own encoding would not produce (a
    // clock time written as a two-byte varint): only what came in can have put them in the store.
    const received = encodeState(remote);
    const bytes = Uint8Array.from([
      ...received.subarray(0, 5),
      0x80 | received[5]!,
      0x00,
      ...received.subarray(6),
    ]);
    const at = `${partitionOf(Q, 'fresh').toString(16).padStart(4, '0')}:${bucketOf('fresh').toString(16).padStart(3, '0')}/fresh`;
    await store.merge('fresh', remote, bytes);
    expect(await engine.get('data', at)).toEqual(bytes);
    expect(await store.read('fresh')).toEqual(remote);
    // Read back through a store without the cached state: the stored bytes decode to that state.
    expect(await new ReplicaStore(engine, { partitionCount: Q, sync: false }).read('fresh')).toEqual(remote);

    await store.update('held', (s) => write(s, 'n1', '"local"'));
    const merged = await store.merge('held', remote, encodeState(remote));
    expect(merged.siblings).toHaveLength(2);
    expect(await store.readEncoded('held')).toEqual(encodeState(merged));
  });
  it('refuses to grow a key beyond siblingsMax on update, but always merges', async () => {
    const raw = await makeEngine();
    await raw.open();
    cleanups.push(() => raw.close());
    const store = new ReplicaStore(raw, { partitionCount: Q, sync: true, siblingsMax: 2 });
    await store.update('k', (s) => write(s, 'n1', '1'));
    await store.update('k', (s) => write(s, 'n1', '2'));
    const err = await store.update('k', (s) => write(s, 'n1', '3')).catch((e: unknown) => e);
    expect(TesseraError.is(err) && err.code).toBe('TOO_MANY_SIBLINGS');
    expect((await store.read('k'))!.siblings).toHaveLength(2);
    const merged = await store.merge('k', write(EMPTY_STATE, 'n2', '4'));
    expect(merged.siblings).toHaveLength(3);
  });

  it('refuses to grow a key past stateBytesMax on update, before sending or storing it; a write that shrinks it passes; merges always do', async () => {
    const raw = await makeEngine();
    await raw.open();
    cleanups.push(() => raw.close());
    const store = new ReplicaStore(raw, { partitionCount: Q, sync: true, stateBytesMax: 400 });
    const big = `"${'x'.repeat(150)}"`;
    await store.update('k', (s) => write(s, 'n1', big));
    await store.update('k', (s) => write(s, 'n2', big));
    const before = await store.readEncoded('k');
    let sent = 0;
    const err = await store
      .update('k', (s) => write(s, 'n3', big), { beforeWrite: () => sent++ })
      .catch((e: unknown) => e);
    expect(TesseraError.is(err) && err.code).toBe('VALUE_TOO_LARGE');
    expect(TesseraError.is(err) && err.message).toMatch(/merge the siblings into one value/);
    expect(sent).toBe(0);
    expect(await store.readEncoded('k')).toEqual(before);
    // Resolving the siblings (a write with the read's context) shrinks the state: it passes.
    const stored = (await store.read('k'))!;
    const resolved = applyWrite(stored, {
      actor: 'n1',
      context: { vv: stored.vv, dots: [] },
      value: utf8('"one"'),
      nowMs: 2000,
      vvEntriesMax: 10,
    });
    await store.update('k', () => resolved);
    expect((await store.read('k'))!.siblings).toHaveLength(1);
    const merged = await store.merge('k2', write(EMPTY_STATE, 'n2', `"${'y'.repeat(500)}"`));
    expect(merged.siblings).toHaveLength(1);
  });

  it('scans exactly one partition, bucket by bucket in key order, with limit and afterKey', async () => {
    const { store } = await open();
    const keys = Array.from({ length: 120 }, (_, i) => `key-${i}`);
    keys.push('', 'a/b', '0000/x', 'é', '😀', '\uffff');
    await Promise.all(keys.map((key) => store.update(key, (s) => write(s, 'n1', JSON.stringify(key)))));
    const seen: string[] = [];
    for (let p = 0; p < Q; p++) {
      const want = keys
        .filter((k) => partitionOf(Q, k) === p)
        .sort((a, b) => bucketOf(a) - bucketOf(b) || Buffer.compare(utf8(a), utf8(b)));
      const got: string[] = [];
      for await (const [key, state] of store.scanPartition(p)) {
        expect(state.siblings[0]!.value).toEqual(utf8(JSON.stringify(key)));
        got.push(key);
      }
      expect(got).toEqual(want);
      seen.push(...got);
      const paged: string[] = [];
      for (let afterKey: string | undefined; ; ) {
        const page: string[] = [];
        for await (const [key] of store.scanPartition(p, { limit: 4, afterKey })) page.push(key);
        paged.push(...page);
        if (page.length < 4) break;
        afterKey = page[page.length - 1];
      }
      expect(paged).toEqual(want);
    }
    expect(seen.sort()).toEqual([...keys].sort());
  });

  it('scans exactly one bucket of a partition, in key order, with limit and afterKey', async () => {
    const { store } = await open();
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${i}`);
    const groups = new Map<string, string[]>();
    for (const k of keys) {
      const group = `${partitionOf(Q, k)}/${bucketOf(k)}`;
      groups.set(group, [...(groups.get(group) ?? []), k]);
    }
    const [group, members] = [...groups].sort((x, y) => y[1].length - x[1].length)[0]!;
    const [p, b] = group.split('/').map(Number) as [number, number];
    // The fullest bucket, a few others, and no other key of the partition or bucket.
    const written = [...members, ...keys.slice(0, 50)];
    await Promise.all(written.map((key) => store.update(key, (s) => write(s, 'n1', '1'))));
    const want = [...members].sort((x, y) => Buffer.compare(utf8(x), utf8(y)));
    expect(want.length).toBeGreaterThan(3);
    const got: string[] = [];
    for await (const [k] of store.scanBucket(p, b)) got.push(k);
    expect(got).toEqual(want);
    const rest: string[] = [];
    for await (const [k] of store.scanBucket(p, b, { afterKey: want[0]!, limit: 100 })) rest.push(k);
    expect(rest).toEqual(want.slice(1));
  });

  it('rejects a partition that does not exist', async () => {
    const { store } = await open();
    const scan = async () => {
      for await (const _ of store.scanPartition(Q));
    };
    await expect(scan()).rejects.toThrow(/does not exist/);
  });
});

describe('ReplicaStore on leveldb across restarts', () => {
  it('keeps data across close and reopen', async () => {
    const dir = await levelDir();
    const first = new LevelEngine(dir);
    await first.open();
    const store = new ReplicaStore(first, { partitionCount: Q, sync: true });
    const written = await store.update('durable', (s) => write(s, 'n1', '"kept"'));
    await first.close();

    const second = new LevelEngine(dir);
    await second.open();
    cleanups.push(() => second.close());
    const reopened = new ReplicaStore(second, { partitionCount: Q, sync: true });
    expect(await reopened.read('durable')).toEqual(written);
  });
});

describe('ReplicaStore durability modes', () => {
  const modes = [
    { durability: 'process', sync: false, syncUpdates: false, update: false, merge: false },
    { durability: 'fsync-one', sync: false, syncUpdates: true, update: true, merge: false },
    { durability: 'fsync', sync: true, syncUpdates: false, update: true, merge: true },
  ] as const;
  it.each(modes)('$durability syncs coordinator writes: $update, replica merges: $merge', async (mode) => {
    const memory = new MemoryEngine();
    await memory.open();
    cleanups.push(() => memory.close());
    const { engine, syncs } = counting(memory);
    const store = new ReplicaStore(engine, {
      partitionCount: Q,
      sync: mode.sync,
      syncUpdates: mode.syncUpdates,
    });
    await store.update('a', (s) => write(s, 'n1', '1'));
    await store.merge('b', write(EMPTY_STATE, 'n2', '2'));
    expect(syncs).toEqual([mode.update, mode.merge]);
  });
});
