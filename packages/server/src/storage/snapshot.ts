/**
 * Snapshots of a data dir (docs/operations.md, "Backup and restore"). Taking one copies every
 * entry the engine holds as of one instant (`StorageEngine.snapshot`: one LevelDB iterator, which
 * reads an implicit LevelDB snapshot) into a fresh LevelDB `DIR/db`, while the node keeps serving,
 * then writes `DIR/manifest.json` last: a snapshot without a manifest is incomplete. Restoring
 * copies `db/` into a new data dir and reads it back against the manifest's counts and checksum
 * before anything may start on it.
 */
import { cp, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TesseraError } from '@tessera/core';
import type { BatchOp, SnapshotEntry, StorageEngine } from './engine.js';
import { FORMAT_VERSION_OLDEST } from './format.js';
import { LAYOUT_KEY } from './layout.js';
import { LevelEngine } from './level-engine.js';
import {
  MANIFEST_BYTES_MAX,
  MANIFEST_FILE,
  parseManifest,
  SNAPSHOT_DB_DIR,
  SNAPSHOT_VERSION,
  SnapshotDigest,
  type SnapshotManifest,
  verifyContents,
} from './snapshot-manifest.js';

/** Entries, and bytes of keys and values, written per batch to the snapshot's LevelDB. */
const BATCH_ENTRIES_MAX = 1_000;
const BATCH_BYTES_MAX = 4 * 1024 * 1024;

export interface SnapshotSource {
  readonly engine: StorageEngine;
  readonly nodeId: string;
  readonly clusterId: string;
  readonly now?: () => Date;
  /** Called now and then with the entries copied so far. */
  readonly onProgress?: (entries: number) => void;
}

/** Writes a snapshot of `source.engine` into `dir` (absent or empty); answers its manifest. */
export async function writeSnapshot(source: SnapshotSource, dir: string): Promise<SnapshotManifest> {
  return (await beginSnapshot(source, dir)).finished;
}

/**
 * Claims `dir` (refusing one that is not empty) and starts copying; `finished` settles when the
 * snapshot is complete, or failed and removed.
 */
export async function beginSnapshot(
  source: SnapshotSource,
  dir: string,
): Promise<{ readonly finished: Promise<SnapshotManifest> }> {
  const read = source.engine.snapshot?.bind(source.engine);
  if (read === undefined) {
    throw new TesseraError(
      'NOT_SUPPORTED',
      `The ${source.engine.kind} storage engine cannot be snapshotted.`,
    );
  }
  const created = await claimEmptyDir(dir, 'snapshot');
  const finished = copyInto(source, read, dir).catch(async (err: unknown) => {
    await removeWhatWasWritten(dir, created);
    throw err;
  });
  return { finished };
}

async function copyInto(
  source: SnapshotSource,
  read: () => AsyncIterable<SnapshotEntry>,
  dir: string,
): Promise<SnapshotManifest> {
  const now = source.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const target = new LevelEngine(join(dir, SNAPSHOT_DB_DIR));
  try {
    await target.open();
    const digest = new SnapshotDigest();
    let format = FORMAT_VERSION_OLDEST;
    let ops: BatchOp[] = [];
    let bytes = 0;
    for await (const [ns, key, value] of read()) {
      digest.add(ns, key, value);
      if (ns === 'meta' && key === LAYOUT_KEY) format = formatNumber(value, format);
      ops.push({ type: 'put', ns, key, value });
      bytes += key.length + value.byteLength;
      if (ops.length >= BATCH_ENTRIES_MAX || bytes >= BATCH_BYTES_MAX) {
        await target.batch(ops);
        source.onProgress?.(digest.entries);
        ops = [];
        bytes = 0;
      }
    }
    // A synced batch fsyncs LevelDB's log, and with it every batch before.
    await target.batch(ops, { sync: true });
    await target.close();
    const manifest: SnapshotManifest = {
      kind: 'tessera-snapshot',
      snapshotVersion: SNAPSHOT_VERSION,
      formatVersion: format,
      nodeId: source.nodeId,
      clusterId: source.clusterId,
      startedAt,
      finishedAt: now().toISOString(),
      ...digest.finish(),
    };
    await writeFileDurably(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await target.close().catch(() => undefined);
  }
}

function formatNumber(marker: Uint8Array, fallback: number): number {
  const version = Number(new TextDecoder().decode(marker));
  return Number.isSafeInteger(version) && version >= 1 ? version : fallback;
}

/** What a restore does to the restored data dir once it is verified (the node's own adjustments). */
export type RestoreAdjust = (engine: StorageEngine, manifest: SnapshotManifest) => Promise<void>;

/**
 * Restores the snapshot in `from` into the data dir `dataDir` (absent or empty): copies its LevelDB,
 * reads every entry back against the manifest, then lets `adjust` prepare it. On any failure the
 * data dir is left as it was found.
 */
export async function restoreSnapshot(
  from: string,
  dataDir: string,
  adjust: RestoreAdjust,
): Promise<SnapshotManifest> {
  const manifest = await readManifest(from);
  const created = await claimEmptyDir(dataDir, 'restore');
  const engine = new LevelEngine(join(dataDir, 'db'));
  try {
    await cp(join(from, SNAPSHOT_DB_DIR), join(dataDir, 'db'), { recursive: true, errorOnExist: true });
    await engine.open();
    const digest = new SnapshotDigest();
    for await (const [ns, key, value] of engine.snapshot()) digest.add(ns, key, value);
    verifyContents(manifest, digest.finish(), from);
    await adjust(engine, manifest);
    await engine.close();
    return manifest;
  } catch (err) {
    await engine.close().catch(() => undefined);
    await removeWhatWasWritten(dataDir, created);
    throw err;
  }
}

/** The manifest of the snapshot in `dir`, checked. */
export async function readManifest(dir: string): Promise<SnapshotManifest> {
  const path = join(dir, MANIFEST_FILE);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new TesseraError(
      'SNAPSHOT_INVALID',
      `${dir} has no ${MANIFEST_FILE}: it is not a snapshot, or one that did not finish. Take a new one with tessera admin snapshot.`,
    );
  }
  if (size > MANIFEST_BYTES_MAX) {
    throw new TesseraError('SNAPSHOT_INVALID', `${path} is ${size} bytes: not a Tessera snapshot manifest.`);
  }
  return parseManifest(await readFile(path, 'utf8'), dir);
}

/** Makes sure `dir` exists and is empty; true when this call created it. */
async function claimEmptyDir(dir: string, what: 'snapshot' | 'restore'): Promise<boolean> {
  let entries: string[] | undefined;
  try {
    entries = await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw notEmpty(dir, what, 'is a file');
    if (code !== 'ENOENT') throw err;
  }
  if (entries !== undefined && entries.length > 0) throw notEmpty(dir, what, 'is not empty');
  await mkdir(dir, { recursive: true });
  return entries === undefined;
}

function notEmpty(dir: string, what: 'snapshot' | 'restore', why: string): TesseraError {
  const hint =
    what === 'snapshot'
      ? 'Give a new directory, or an empty one: a snapshot never overwrites anything.'
      : 'Give a new --data-dir, or an empty one: a restore never overwrites a data dir.';
  return new TesseraError('DIR_NOT_EMPTY', `${dir} ${why}. ${hint}`, { dir });
}

async function removeWhatWasWritten(dir: string, created: boolean): Promise<void> {
  if (created) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    return;
  }
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    entries.map((e) => rm(join(dir, e), { recursive: true, force: true }).catch(() => undefined)),
  );
}

/** Writes a file through a temporary name and fsync, so it is there whole or not at all. */
async function writeFileDurably(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}
