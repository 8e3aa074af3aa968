/**
 * Hinted handoff's store (paper 4.6): versions a node holds for a replica that was down, kept in
 * the engine's `hints` namespace apart from its own data, under `<target node>/<key>`. Several
 * hinted writes of one key for one target merge into one hint. Bounded in count and bytes: at the
 * bound a new hint is refused (the write it belongs to gets one acknowledgement fewer), nothing
 * held is dropped, and anti-entropy repairs what a refused hint would have carried.
 */
import {
  decodeState,
  encodeState,
  type KeyState,
  mergeStates,
  type NodeId,
  TesseraError,
} from '@tessera/core';
import type { StorageEngine } from './engine.js';
import { KeyLock, lockHash } from './key-lock.js';
import { sameBytes } from './stored-version.js';

export interface HintStoreOptions {
  readonly hintsMax: number;
  readonly hintBytesMax: number;
  readonly sync: boolean;
  readonly now: () => number;
}

export interface HeldHints {
  readonly count: number;
  readonly bytes: number;
}

export interface Hint {
  readonly key: string;
  /** Encoded state, exactly as stored (handed to `remove` to prove nothing changed since). */
  readonly stored: Uint8Array;
  readonly state: KeyState;
  readonly createdMs: number;
}

/** Stored value: 8-byte creation time (float64, big-endian), then the encoded state. */
const HEADER_BYTES = 8;

export class HintStore {
  private readonly lock = new KeyLock();
  private readonly held = new Map<NodeId, { count: number; bytes: number }>();
  private total = { count: 0, bytes: 0 };
  /**
   * When the oldest hint held for each target was written: exact after open and after a `take`
   * that listed all of the target's hints; in between, deliveries can leave it older than the
   * oldest hint still held (never younger).
   */
  private readonly oldest = new Map<NodeId, number>();
  /** Why new hints are refused now (a drain: node/drain.ts), or undefined to take them. */
  private refuseNew: () => Error | undefined = () => undefined;

  constructor(
    private readonly engine: StorageEngine,
    private readonly options: HintStoreOptions,
  ) {}

  /** Counts what is held (after a restart, hints are still on disk). */
  async open(): Promise<void> {
    for await (const [stored, bytes] of this.engine.iterate('hints')) {
      const target = stored.slice(0, stored.indexOf('/'));
      this.account(target, 1, bytes.length);
      this.written(target, createdMsOf(bytes));
    }
  }

  /** New hints are refused with `check()`'s error while it gives one (the writer tries another node). */
  refuseNewWhile(check: () => Error | undefined): void {
    this.refuseNew = check;
  }

  /** Adds (merges) a hinted version of `key` meant for `target`. */
  add(target: NodeId, key: string, state: KeyState): Promise<void> {
    const refused = this.refuseNew();
    if (refused !== undefined) return Promise.reject(refused);
    const storedKey = `${target}/${key}`;
    return this.lock.run(storedKey, lockHash(storedKey), async () => {
      const existing = await this.engine.get('hints', storedKey);
      const previous = existing === undefined ? undefined : unpack(existing);
      const merged = previous === undefined ? state : mergeStates(previous.state, state);
      const value = pack(previous?.createdMs ?? this.options.now(), merged);
      const grow = value.length - (existing?.length ?? 0);
      if (existing === undefined && this.total.count >= this.options.hintsMax)
        throw full('count', this.options.hintsMax);
      if (grow > 0 && this.total.bytes + grow > this.options.hintBytesMax)
        throw full('bytes', this.options.hintBytesMax);
      await this.engine.batch([{ type: 'put', ns: 'hints', key: storedKey, value }], {
        sync: this.options.sync,
      });
      this.account(target, existing === undefined ? 1 : 0, grow);
      this.written(target, previous?.createdMs ?? this.options.now());
    });
  }

  /** Up to `limit` hints for `target`, oldest key order. */
  async take(target: NodeId, limit: number): Promise<Hint[]> {
    const out: Hint[] = [];
    const prefix = `${target}/`;
    for await (const [stored, bytes] of this.engine.iterate('hints', {
      gte: prefix,
      lt: `${target}0`,
      limit,
    })) {
      const { createdMs, state } = unpack(bytes);
      out.push({ key: stored.slice(prefix.length), stored: bytes, state, createdMs });
    }
    if (out.length > 0 && out.length < limit && this.held.has(target))
      this.oldest.set(
        target,
        out.reduce((min, h) => Math.min(min, h.createdMs), Number.POSITIVE_INFINITY),
      );
    return out;
  }

  /** Deletes a delivered hint, unless another hinted write merged into it since it was taken. */
  remove(target: NodeId, hint: Hint): Promise<boolean> {
    const storedKey = `${target}/${hint.key}`;
    return this.lock.run(storedKey, lockHash(storedKey), async () => {
      const current = await this.engine.get('hints', storedKey);
      if (current === undefined || !sameBytes(current, hint.stored)) return false;
      await this.engine.batch([{ type: 'del', ns: 'hints', key: storedKey }], { sync: this.options.sync });
      this.account(target, -1, -current.length);
      return true;
    });
  }

  /** Targets with hints held, and how many and how large. */
  targets(): Map<NodeId, HeldHints> {
    return new Map([...this.held].filter(([, h]) => h.count > 0).map(([t, h]) => [t, { ...h }]));
  }

  /** When the oldest hint held for each target was written (see `oldest`). */
  oldestByTarget(): Map<NodeId, number> {
    return new Map(this.oldest);
  }

  totals(): HeldHints {
    return { ...this.total };
  }

  private account(target: NodeId, count: number, bytes: number): void {
    const h = this.held.get(target) ?? { count: 0, bytes: 0 };
    h.count += count;
    h.bytes += bytes;
    if (h.count <= 0) {
      this.held.delete(target);
      this.oldest.delete(target);
    } else this.held.set(target, h);
    this.total = { count: this.total.count + count, bytes: this.total.bytes + bytes };
  }

  private written(target: NodeId, createdMs: number): void {
    const known = this.oldest.get(target);
    if (this.held.has(target) && (known === undefined || createdMs < known))
      this.oldest.set(target, createdMs);
  }
}

function createdMsOf(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(0);
}

function pack(createdMs: number, state: KeyState): Uint8Array {
  const body = encodeState(state);
  const out = new Uint8Array(HEADER_BYTES + body.length);
  new DataView(out.buffer).setFloat64(0, createdMs);
  out.set(body, HEADER_BYTES);
  return out;
}

function unpack(bytes: Uint8Array): { createdMs: number; state: KeyState } {
  try {
    const createdMs = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getFloat64(0);
    return { createdMs, state: decodeState(bytes.subarray(HEADER_BYTES)) };
  } catch (err) {
    throw new TesseraError(
      'STORAGE_FAILURE',
      'A stored hint is unreadable; the data dir may be damaged.',
      {},
      { cause: err },
    );
  }
}

function full(what: 'count' | 'bytes', limit: number): TesseraError {
  return new TesseraError(
    'OVERLOADED',
    `This node's hint store is full (${what} limit ${limit}); it holds hints for down replicas until they return. Bring the down nodes back, or raise ${what === 'count' ? 'hintsMax' : 'hintBytesMax'}.`,
    { limit },
  );
}
