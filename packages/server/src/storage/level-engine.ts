/**
 * The default engine: LevelDB through classic-level, one database per data dir.
 *
 * Layout: one flat LevelDB keyspace, keys UTF-8, values raw bytes. A namespace is a two-character
 * key prefix (`d!` data, `h!` hints, `m!` meta), so `data` key `0003/cart:7` is stored as
 * `d!0003/cart:7`. A namespace's entries are the keys from `d!` (inclusive) to `d"` (exclusive):
 * `"` is the character after `!`, so user keys may contain any character, `!` included, without
 * leaking into another namespace.
 *
 * Durability: LevelDB appends every batch to its write-ahead log before the batch resolves, so a
 * killed process loses nothing acknowledged; `{ sync: true }` also fsyncs the log, for power loss.
 */
import { TesseraError } from '@tessera/core';
import { ClassicLevel } from 'classic-level';
import { BaseEngine, type CheckedRange, KEY_BATCH_SIZE } from './base-engine.js';
import type { BatchOp, Namespace, SnapshotEntry } from './engine.js';

export const LEVEL_KEY_PREFIXES: Readonly<Record<Namespace, string>> = Object.freeze({
  data: 'd!',
  hints: 'h!',
  meta: 'm!',
});

/** The end of a prefix's range: the prefix with its separator `!` bumped to `"`. */
const RANGE_END_SEPARATOR = '"';

type Db = ClassicLevel<string, Uint8Array>;

/** The implementation side of abstract-level's contract, under its public `batch()` (see writeBatch). */
interface DirectDb {
  _batch(ops: readonly LevelOp[], options: { sync: boolean }): Promise<void>;
  _chainedBatch(): DirectBatch;
  detachResource(resource: unknown): void;
}

interface DirectBatch {
  _put(key: string, value: Uint8Array): void;
  _del(key: string): void;
  _write(options: { sync: boolean }): Promise<void>;
}

type LevelOp = { type: 'put'; key: string; value: Uint8Array } | { type: 'del'; key: string };

/**
 * Batches of at least this many ops go through classic-level's chained batch: each op is one call
 * into the binding with its key and value, where the array form makes the binding look up each
 * op's `type`, `key` and `value` by name (five property lookups, each interning its name). About 1
 * µs less main-thread CPU per op at 8-20 ops, a little more at one op (micro-benchmark,
 * docs/benchmarks.md, nineteenth round).
 */
export const CHAINED_BATCH_OPS_MIN = 4;

/**
 * classic-level's own batch, under abstract-level's public `batch()`: keys here are already the
 * strings LevelDB stores and values already bytes (the db's encodings are `utf8` and `view`, which
 * the binding takes as they are), so abstract-level's per-op copy, validation and re-encoding,
 * about 6% of a coordinator's CPU under writes (docs/benchmarks.md), buys nothing. It is the
 * implementation side of abstract-level's contract (`_batch`, `_chainedBatch`, and
 * `detachResource` for the chained batch the db registered), stable across classic-level 1-3; the
 * storage conformance suite runs on it.
 */
function writeBatch(db: Db, ops: readonly BatchOp[], sync: boolean): Promise<void> {
  const direct = db as unknown as DirectDb;
  if (ops.length < CHAINED_BATCH_OPS_MIN) {
    const levelOps: LevelOp[] = [];
    for (const op of ops) levelOps.push(levelOp(op));
    return direct._batch(levelOps, { sync });
  }
  const batch = direct._chainedBatch();
  try {
    for (const op of ops) {
      if (op.type === 'put') batch._put(levelKey(op), op.value);
      else batch._del(levelKey(op));
    }
  } catch (err) {
    direct.detachResource(batch);
    return Promise.reject(err);
  }
  const written = batch._write({ sync });
  const detach = (): void => direct.detachResource(batch);
  written.then(detach, detach);
  return written;
}

function levelOp(op: BatchOp): LevelOp {
  const key = levelKey(op);
  return op.type === 'put' ? { type: 'put', key, value: op.value } : { type: 'del', key };
}

/** The key LevelDB stores for `op`: its namespace's prefix, then its key. */
function levelKey(op: BatchOp): string {
  return LEVEL_KEY_PREFIXES[op.ns] + op.key;
}

/** A key no namespace uses (every LevelDB key starts with a namespace prefix). */
const NO_KEY_RANGE = '~compaction-probe';

/** Gets read together at most; more in one tick start another `getMany`. */
const READS_PER_BATCH_MAX = 1_024;

interface PendingRead {
  readonly key: string;
  readonly ns: Namespace;
  resolve(value: Uint8Array | undefined): void;
  reject(err: unknown): void;
}

export class LevelEngine extends BaseEngine {
  readonly kind = 'leveldb';
  private db: Db | undefined;
  private reads: PendingRead[] = [];
  private readsQueued = false;

  constructor(readonly dir: string) {
    super();
  }

  protected async _open(): Promise<void> {
    // Created here, not in the constructor: classic-level opens itself a tick after construction.
    const db: Db = new ClassicLevel<string, Uint8Array>(this.dir, {
      keyEncoding: 'utf8',
      valueEncoding: 'view',
    });
    try {
      await db.open();
    } catch (err) {
      throw openFailure(this.dir, err);
    }
    this.db = db;
  }

  /**
   * Makes LevelDB schedule background work (a flush of the memtable, and a compaction of a range
   * that holds no key), which starts its background thread if it has not started yet.
   */
  async startBackgroundWork(): Promise<void> {
    await this.handle().compactRange(NO_KEY_RANGE, NO_KEY_RANGE);
  }

  /** LevelDB's count of level-0 files (flushed memtables not yet compacted); undefined when closed. */
  level0Files(): number | undefined {
    if (this.db === undefined) return undefined;
    const files = Number(this.db.getProperty('leveldb.num-files-at-level0'));
    return Number.isInteger(files) ? files : undefined;
  }

  protected async _close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    try {
      await db?.close();
    } catch (err) {
      throw failure(`Closing the LevelDB data dir ${this.dir} failed`, this.dir, err);
    }
  }

  /** Gets of one tick are read together, with one `getMany` (one snapshot, one trip to the thread pool). */
  protected _get(ns: Namespace, key: string): Promise<Uint8Array | undefined> {
    return new Promise((resolve, reject) => {
      this.reads.push({ key: LEVEL_KEY_PREFIXES[ns] + key, ns, resolve, reject });
      if (this.reads.length >= READS_PER_BATCH_MAX) this.readBatch();
      else if (!this.readsQueued) {
        this.readsQueued = true;
        setImmediate(() => this.readBatch());
      }
    });
  }

  private readBatch(): void {
    this.readsQueued = false;
    const reads = this.reads;
    if (reads.length === 0) return;
    this.reads = [];
    let db: Db;
    try {
      db = this.handle();
    } catch (err) {
      for (const read of reads) read.reject(err);
      return;
    }
    db.getMany(reads.map((r) => r.key)).then(
      (values) => {
        for (const [i, read] of reads.entries()) {
          const value = values[i];
          read.resolve(value === undefined ? undefined : plain(value));
        }
      },
      (err: unknown) => {
        for (const read of reads) {
          read.reject(
            failure(`Reading ${read.ns} key ${JSON.stringify(read.key.slice(2))} failed`, this.dir, err),
          );
        }
      },
    );
  }

  protected async _batch(ops: readonly BatchOp[], sync: boolean): Promise<void> {
    try {
      await writeBatch(this.handle(), ops, sync);
    } catch (err) {
      throw failure(`Writing a batch of ${ops.length} ops failed`, this.dir, err);
    }
  }

  protected async *_iterate(ns: Namespace, range: CheckedRange): AsyncIterable<[string, Uint8Array]> {
    const prefix = LEVEL_KEY_PREFIXES[ns];
    try {
      for await (const [key, value] of this.handle().iterator(levelRange(ns, range))) {
        yield [key.slice(prefix.length), plain(value)];
      }
    } catch (err) {
      throw failure(`Iterating the ${ns} namespace failed`, this.dir, err);
    }
  }

  /** Keys only: LevelDB's values are never copied out (the key filter's scan, 2.5 times faster). */
  protected override async *_keys(ns: Namespace, range: CheckedRange): AsyncIterable<readonly string[]> {
    const prefix = LEVEL_KEY_PREFIXES[ns];
    const keys = this.handle().keys(levelRange(ns, range));
    try {
      for (;;) {
        const batch = await keys.nextv(KEY_BATCH_SIZE);
        if (batch.length === 0) return;
        yield batch.map((key) => key.slice(prefix.length));
      }
    } catch (err) {
      throw failure(`Listing the keys of the ${ns} namespace failed`, this.dir, err);
    } finally {
      await keys.close();
    }
  }

  /**
   * One iterator over every namespace: classic-level iterators read an implicit LevelDB snapshot
   * taken when they are created, so the entries are those of one instant while writes go on.
   */
  protected async *_snapshot(): AsyncIterable<SnapshotEntry> {
    const byPrefix = new Map(Object.entries(LEVEL_KEY_PREFIXES).map(([ns, p]) => [p, ns as Namespace]));
    try {
      for await (const [key, value] of this.handle().iterator()) {
        const ns = byPrefix.get(key.slice(0, 2));
        if (ns === undefined) {
          throw new TesseraError(
            'STORAGE_FAILURE',
            `The LevelDB data dir ${this.dir} holds a key outside every namespace (${JSON.stringify(key.slice(0, 16))}); it was not written by this Tessera.`,
            { dir: this.dir },
          );
        }
        yield [ns, key.slice(2), plain(value)];
      }
    } catch (err) {
      throw failure('Reading a snapshot of the data dir failed', this.dir, err);
    }
  }

  private handle(): Db {
    if (this.db !== undefined) return this.db;
    throw new TesseraError('STORAGE_FAILURE', `The LevelDB data dir ${this.dir} is not open.`, {
      dir: this.dir,
    });
  }
}

/**
 * classic-level hands out Node Buffers, whose `slice` is a view, not a copy; callers get a plain
 * Uint8Array over the same (freshly copied) memory.
 */
function plain(value: Uint8Array): Uint8Array {
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** The `code`s along an error's cause chain, outermost first (abstract-level wraps native errors). */
function levelCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

function openFailure(dir: string, err: unknown): TesseraError {
  if (levelCodes(err).includes('LEVEL_LOCKED')) {
    return new TesseraError(
      'STORAGE_FAILURE',
      `Cannot open the data dir ${dir}: its LevelDB is locked. Is another node using this data dir? ` +
        'Stop that node, or give this one its own --data-dir.',
      { dir, levelCode: 'LEVEL_LOCKED' },
      { cause: err },
    );
  }
  return failure(
    `Cannot open the data dir ${dir} (check it is a writable directory that holds a Tessera LevelDB, ` +
      'and that the disk has space)',
    dir,
    err,
  );
}

function failure(action: string, dir: string, err: unknown): TesseraError {
  if (TesseraError.is(err)) return err;
  const codes = levelCodes(err);
  const reason = innermostMessage(err);
  const hint = codes.includes('LEVEL_DATABASE_NOT_OPEN')
    ? 'The engine was closed, or is closing; open it again before using it.'
    : 'The disk may be full, read-only or failing; check the node log and the data dir.';
  return new TesseraError(
    'STORAGE_FAILURE',
    `${action}: ${reason}. ${hint}`,
    { dir, levelCode: codes.at(-1) },
    { cause: err },
  );
}

function innermostMessage(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 4; depth++) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** A namespace's range as LevelDB keys (each namespace is a key prefix). */
function levelRange(ns: Namespace, range: CheckedRange): { gte: string; lt: string; limit: number } {
  const prefix = LEVEL_KEY_PREFIXES[ns];
  const gte = prefix + (range.gte ?? '');
  const lt = range.lt === undefined ? prefix.slice(0, -1) + RANGE_END_SEPARATOR : prefix + range.lt;
  return { gte, lt, limit: range.limit };
}
