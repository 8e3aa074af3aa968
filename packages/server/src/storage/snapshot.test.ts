/** Snapshot manifests, checksums, and the write/restore round trip (storage/snapshot.ts). */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TesseraError } from '@tessera/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { SnapshotService } from '../node/snapshots.js';
import { checkFormat, FORMAT_VERSION } from './format.js';
import { LAYOUT_KEY } from './layout.js';
import { LevelEngine } from './level-engine.js';
import { MemoryEngine } from './memory-engine.js';
import { restoreSnapshot, writeSnapshot } from './snapshot.js';
import {
  MANIFEST_FILE,
  parseManifest,
  SnapshotDigest,
  type SnapshotManifest,
  verifyContents,
} from './snapshot-manifest.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const root = await mkdtemp(join(tmpdir(), 'tessera-snapshot-unit-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(root, `d${dirs++}`);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (TesseraError.is(err)) return err.code;
    throw err;
  }
  throw new Error('expected a TesseraError');
}

function digestOf(entries: [ns: 'data' | 'hints' | 'meta', key: string, value: string][]) {
  const d = new SnapshotDigest();
  for (const [ns, key, value] of entries) d.add(ns, key, utf8(value));
  return d.finish();
}

async function sourceEngine(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.open();
  await engine.batch([
    { type: 'put', ns: 'data', key: '0001:00/a', value: utf8('A') },
    { type: 'put', ns: 'data', key: '0002:00/b', value: utf8('B') },
    { type: 'put', ns: 'hints', key: 'n2/x', value: utf8('H') },
    { type: 'put', ns: 'meta', key: LAYOUT_KEY, value: utf8(String(FORMAT_VERSION)) },
    { type: 'put', ns: 'meta', key: 's/stock/1', value: utf8('acceptor') },
  ]);
  return engine;
}

const source = (engine: MemoryEngine) => ({ engine, nodeId: 'n1', clusterId: 'c-1' });

describe('snapshot checksum', () => {
  it('is the same for the same entries and differs when an entry moves between key and value', () => {
    const a = digestOf([
      ['data', 'k', 'v'],
      ['meta', 'm', '1'],
    ]);
    expect(
      digestOf([
        ['data', 'k', 'v'],
        ['meta', 'm', '1'],
      ]),
    ).toEqual(a);
    expect(a.keys).toEqual({ data: 1, hints: 0, meta: 1 });
    expect(a.bytes).toBe(4);
    expect(digestOf([['data', 'ab', 'c']]).checksum).not.toBe(digestOf([['data', 'a', 'bc']]).checksum);
    expect(digestOf([['data', 'k', 'v']]).checksum).not.toBe(digestOf([['hints', 'k', 'v']]).checksum);
  });

  it('verification names a count that differs, and catches a changed value', () => {
    const found = digestOf([['data', 'k', 'v']]);
    const manifest = { keys: found.keys, bytes: found.bytes, checksum: found.checksum } as SnapshotManifest;
    expect(() => verifyContents(manifest, found, 'S')).not.toThrow();
    expect(() =>
      verifyContents(
        manifest,
        digestOf([
          ['data', 'k', 'v'],
          ['data', 'l', 'w'],
        ]),
        'S',
      ),
    ).toThrow(/2 data entries but its manifest says 1/);
    expect(() => verifyContents(manifest, digestOf([['data', 'k', 'x']]), 'S')).toThrow(/checksum/);
  });
});

describe('snapshot manifest', () => {
  it('refuses what is not a manifest, and snapshots or formats newer than this Tessera', async () => {
    const engine = await sourceEngine();
    const dir = freshDir();
    const good = await writeSnapshot(source(engine), dir);
    expect(good).toMatchObject({ nodeId: 'n1', clusterId: 'c-1', formatVersion: FORMAT_VERSION });
    expect(good.keys).toEqual({ data: 2, hints: 1, meta: 2 });
    expect(parseManifest(await readFile(join(dir, MANIFEST_FILE), 'utf8'), dir)).toEqual(good);
    expect(() => parseManifest('{', 'S')).toThrow(/not JSON/);
    expect(() => parseManifest(JSON.stringify({ ...good, checksum: 'md5:1' }), 'S')).toThrow(/checksum/);
    const newer = (change: object) => {
      try {
        parseManifest(JSON.stringify({ ...good, ...change }), 'S');
      } catch (err) {
        return TesseraError.is(err) ? err.code : 'other';
      }
      return 'accepted';
    };
    expect(newer({ snapshotVersion: 2 })).toBe('DATA_FORMAT_TOO_NEW');
    expect(newer({ formatVersion: FORMAT_VERSION + 1 })).toBe('DATA_FORMAT_TOO_NEW');
  });
});

describe('write and restore', () => {
  it('round-trips every namespace, and the restored data dir reads the same entries', async () => {
    const engine = await sourceEngine();
    const snap = freshDir();
    const manifest = await writeSnapshot(source(engine), snap);
    const dataDir = freshDir();
    let adjusted = false;
    await restoreSnapshot(snap, dataDir, async () => {
      adjusted = true;
    });
    expect(adjusted).toBe(true);
    const restored = new LevelEngine(join(dataDir, 'db'));
    await restored.open();
    const d = new SnapshotDigest();
    for await (const [ns, key, value] of restored.snapshot()) d.add(ns, key, value);
    await restored.close();
    expect(d.finish().checksum).toBe(manifest.checksum);
  });

  it('refuses a target that is not empty, for a snapshot and for a restore', async () => {
    const engine = await sourceEngine();
    const busy = freshDir();
    await mkdir(busy);
    await writeFile(join(busy, 'keep'), 'x');
    expect(await codeOf(writeSnapshot(source(engine), busy))).toBe('DIR_NOT_EMPTY');
    expect(await readFile(join(busy, 'keep'), 'utf8')).toBe('x');
    const snap = freshDir();
    await writeSnapshot(source(engine), snap);
    expect(await codeOf(restoreSnapshot(snap, busy, async () => {}))).toBe('DIR_NOT_EMPTY');
  });

  it('refuses a damaged snapshot and leaves no data dir behind', async () => {
    const engine = await sourceEngine();
    const snap = freshDir();
    await writeSnapshot(source(engine), snap);
    const tamper = new LevelEngine(join(snap, 'db'));
    await tamper.open();
    await tamper.batch([{ type: 'put', ns: 'data', key: '0001:00/a', value: utf8('changed') }]);
    await tamper.close();
    const dataDir = freshDir();
    expect(await codeOf(restoreSnapshot(snap, dataDir, async () => {}))).toBe('SNAPSHOT_INVALID');
    await expect(stat(dataDir)).rejects.toThrow();
    expect(await codeOf(restoreSnapshot(freshDir(), freshDir(), async () => {}))).toBe('SNAPSHOT_INVALID');
  });
});

describe('consistency', () => {
  it('a LevelDB snapshot taken while writes go on holds a prefix of them, each batch whole', async () => {
    const engine = new LevelEngine(join(freshDir(), 'db'));
    await engine.open();
    const seed = Array.from({ length: 3000 }, (_, i) => ({
      type: 'put' as const,
      ns: 'data' as const,
      key: `seed/${String(i).padStart(5, '0')}`,
      value: utf8('v'.repeat(100)),
    }));
    await engine.batch(seed);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      // Each batch puts one data and one meta entry: a snapshot has both or neither.
      for (; writing && written < 5000; written++) {
        const key = `late/${String(written).padStart(5, '0')}`;
        await engine.batch([
          { type: 'put', ns: 'data', key, value: utf8('d') },
          { type: 'put', ns: 'meta', key, value: utf8('m') },
        ]);
      }
    })();
    const snap = freshDir();
    const manifest = await writeSnapshot({ engine, nodeId: 'n1', clusterId: 'c' }, snap);
    writing = false;
    await writer;
    await engine.close();
    const copy = new LevelEngine(join(snap, 'db'));
    await copy.open();
    const late = { data: [] as string[], meta: [] as string[] };
    for await (const [ns, key] of copy.snapshot())
      if (key.startsWith('late/')) late[ns as 'data' | 'meta'].push(key);
    await copy.close();
    expect(manifest.keys.data).toBe(3000 + late.data.length);
    expect(late.meta).toEqual(late.data);
    // A prefix of the writes: no later write without every earlier one.
    expect(late.data).toEqual(late.data.map((_, i) => `late/${String(i).padStart(5, '0')}`));
    expect(late.data.length).toBeLessThan(written);
  });
});

describe('on-disk format', () => {
  it('accepts no marker (new or format 1) and the current format, refuses a newer one', async () => {
    const engine = new MemoryEngine();
    await engine.open();
    await checkFormat(engine, 'here');
    await engine.batch([{ type: 'put', ns: 'meta', key: LAYOUT_KEY, value: utf8(String(FORMAT_VERSION)) }]);
    await checkFormat(engine, 'here');
    await engine.batch([{ type: 'put', ns: 'meta', key: LAYOUT_KEY, value: utf8('99') }]);
    await expect(checkFormat(engine, 'The data dir /x')).rejects.toThrow(
      /The data dir \/x is in on-disk format 99, written by a newer Tessera/,
    );
  });
});

describe('one snapshot at a time', () => {
  it('a second snapshot while one runs is refused with SNAPSHOT_IN_PROGRESS, and allowed after', async () => {
    const engine = await sourceEngine();
    let release = (): void => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = Object.assign(Object.create(engine) as MemoryEngine, {
      async *snapshot() {
        await gate;
        yield* engine.snapshot();
      },
    });
    const service = new SnapshotService({
      engine: slow,
      nodeId: 'n1',
      clusterId: () => 'c',
      log: createLogger({ level: 'silent' }),
    });
    const first = await service.start(freshDir());
    expect(first.state).toBe('running');
    expect(await codeOf(service.start(freshDir()))).toBe('SNAPSHOT_IN_PROGRESS');
    release();
    await waitUntil(() => service.last?.state === 'done');
    expect(service.last?.manifest?.keys.data).toBe(2);
    expect((await service.start(freshDir())).state).toBe('running');
    await waitUntil(() => service.last?.state === 'done');
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
