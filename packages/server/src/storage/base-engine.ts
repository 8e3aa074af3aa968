/**
 * The public half of every engine (the abstract-level pattern): it tracks open/closed, validates
 * arguments and refuses bad calls with one error per kind, so an engine only implements small
 * `_open/_close/_get/_batch/_iterate` methods that may trust their input.
 */
import { TesseraError } from '@tessera/core';
import type { BatchOp, KeyRange, Namespace, SnapshotEntry, StorageEngine, WriteOptions } from './engine.js';
import { isStorableKey } from './keys.js';

export const NAMESPACES: readonly Namespace[] = Object.freeze(['data', 'hints', 'meta']);

/** Keys per batch of a keys-only scan (`keysOf`, and an engine's own `keys`). */
export const KEY_BATCH_SIZE = 1_000;

/** A namespace's keys in batches: the engine's own `keys` when it has one, else from `iterate`. */
export function keysOf(
  engine: StorageEngine,
  ns: Namespace,
  range?: KeyRange,
): AsyncIterable<readonly string[]> {
  return engine.keys?.(ns, range) ?? batchKeys(engine.iterate(ns, range));
}

async function* batchKeys(entries: AsyncIterable<[string, Uint8Array]>): AsyncIterable<readonly string[]> {
  let batch: string[] = [];
  for await (const [key] of entries) {
    batch.push(key);
    if (batch.length < KEY_BATCH_SIZE) continue;
    yield batch;
    batch = [];
  }
  if (batch.length > 0) yield batch;
}

/** A range whose bounds are checked and whose limit is a whole number (Infinity when absent). */
export interface CheckedRange {
  readonly gte: string | undefined;
  readonly lt: string | undefined;
  readonly limit: number;
}

type Status = 'closed' | 'opening' | 'open' | 'closing';

export abstract class BaseEngine implements StorageEngine {
  abstract readonly kind: string;
  private status: Status = 'closed';
  /** open() and close() run one at a time, in call order. */
  private lifecycle: Promise<void> = Promise.resolve();

  protected abstract _open(): Promise<void>;
  protected abstract _close(): Promise<void>;
  protected abstract _get(ns: Namespace, key: string): Promise<Uint8Array | undefined>;
  /** Called with at least one op, every op checked. */
  protected abstract _batch(ops: readonly BatchOp[], sync: boolean): Promise<void>;
  protected abstract _iterate(ns: Namespace, range: CheckedRange): AsyncIterable<[string, Uint8Array]>;
  /** `_iterate`'s keys in batches; an engine that can skip reading values overrides it. */
  protected _keys(ns: Namespace, range: CheckedRange): AsyncIterable<readonly string[]> {
    return batchKeys(this._iterate(ns, range));
  }
  /** Every entry, namespace then key order, as of the call. */
  protected abstract _snapshot(): AsyncIterable<SnapshotEntry>;

  /** Opening an open engine does nothing; a failed open leaves it closed, and it may be retried. */
  open(): Promise<void> {
    return this.serially(async () => {
      if (this.status === 'open') return;
      this.status = 'opening';
      try {
        await this._open();
        this.status = 'open';
      } catch (err) {
        this.status = 'closed';
        throw err;
      }
    });
  }

  /** Closing a closed engine does nothing. */
  close(): Promise<void> {
    return this.serially(async () => {
      if (this.status === 'closed') return;
      this.status = 'closing';
      try {
        await this._close();
      } finally {
        this.status = 'closed';
      }
    });
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const done = this.lifecycle.then(step);
    this.lifecycle = done.catch(() => undefined);
    return done;
  }

  async get(ns: Namespace, key: string): Promise<Uint8Array | undefined> {
    this.checkOpen();
    checkNamespace(ns);
    checkKey(key);
    return this._get(ns, key);
  }

  async batch(ops: readonly BatchOp[], options?: WriteOptions): Promise<void> {
    this.checkOpen();
    for (const op of ops) checkOp(op);
    if (ops.length === 0) return;
    await this._batch(ops, options?.sync === true);
  }

  iterate(ns: Namespace, range: KeyRange = {}): AsyncIterable<[string, Uint8Array]> {
    this.checkOpen();
    checkNamespace(ns);
    return this._iterate(ns, checkRange(range));
  }

  keys(ns: Namespace, range: KeyRange = {}): AsyncIterable<readonly string[]> {
    this.checkOpen();
    checkNamespace(ns);
    return this._keys(ns, checkRange(range));
  }

  snapshot(): AsyncIterable<SnapshotEntry> {
    this.checkOpen();
    return this._snapshot();
  }

  private checkOpen(): void {
    if (this.status === 'open') return;
    throw new TesseraError(
      'STORAGE_FAILURE',
      `The ${this.kind} storage engine is ${this.status}: call open() before using it, and stop using it once closed.`,
      { engine: this.kind, status: this.status },
    );
  }
}

function checkNamespace(ns: Namespace): void {
  if (!NAMESPACES.includes(ns)) {
    throw new TesseraError('INTERNAL', `Unknown storage namespace ${JSON.stringify(ns)}.`, { ns });
  }
}

function checkKey(key: string, what = 'key'): void {
  if (typeof key !== 'string') throw new TesseraError('INTERNAL', `A storage ${what} must be a string.`);
  if (!isStorableKey(key)) {
    throw new TesseraError(
      'INVALID_KEY',
      `The storage ${what} is not well-formed Unicode (it has a lone surrogate), so it has no UTF-8 form.`,
    );
  }
}

function checkOp(op: BatchOp): void {
  checkNamespace(op.ns);
  checkKey(op.key);
  // The types say what an op holds; a caller from plain JavaScript may not follow them.
  const { type, value } = op as { readonly type: unknown; readonly value?: unknown };
  if (type === 'put') {
    if (!(value instanceof Uint8Array)) {
      throw new TesseraError(
        'INTERNAL',
        `A batch put of key ${JSON.stringify(op.key)} has no Uint8Array value.`,
      );
    }
  } else if (type !== 'del') {
    throw new TesseraError('INTERNAL', `Unknown batch op type ${JSON.stringify(type)}.`);
  }
}

function checkRange(range: KeyRange): CheckedRange {
  if (range.gte !== undefined) checkKey(range.gte, 'range bound gte');
  if (range.lt !== undefined) checkKey(range.lt, 'range bound lt');
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  if (!(limit === Number.POSITIVE_INFINITY || (Number.isSafeInteger(limit) && limit >= 0))) {
    throw new TesseraError('INTERNAL', `A range limit must be a whole number >= 0, got ${limit}.`);
  }
  return { gte: range.gte, lt: range.lt, limit };
}
