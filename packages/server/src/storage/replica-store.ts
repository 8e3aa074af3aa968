/**
 * A replica's versioned data on top of a StorageEngine. Each key's state is stored encoded (core
 * `encodeState`) in the 'data' namespace under `<partition>:<bucket>/<key>` (see stored-keys.ts),
 * so one partition, and each Merkle bucket of it, is one contiguous range.
 *
 * Every change to a key is a read-modify-write under a per-key lock: two concurrent writes to
 * one key never lose an update, and writes to different keys run in parallel. Each change also
 * updates the partition's Merkle tree (partition-trees.ts) and the tombstone index, in the same
 * atomic batch as the state for the latter. Concurrent changes reach the engine together, as one
 * batch per tick (group-commit.ts).
 */
import {
  decodeState,
  EMPTY_STATE,
  encodeState,
  isTombstone,
  type KeyState,
  type MerkleTree,
  mergeStates,
  PARTITION_COUNT_MAX,
  restartsTombstoneClock,
  sameState,
  TesseraError,
} from '@tessera/core';
import type { BatchOp, StorageEngine } from './engine.js';
import { GroupCommit } from './group-commit.js';
import { KeyLock } from './key-lock.js';
import { migrateLayout } from './layout.js';
import { PartitionTrees, type StoredTally } from './partition-trees.js';
import {
  bucketRange,
  bucketsRange,
  dataKey,
  decodeTimeMs,
  encodeTimeMs,
  type Location,
  locate,
  partitionRange,
  tombstoneKey,
  tombstoneRange,
  tombstoneUserKey,
  userKeyOf,
} from './stored-keys.js';

export interface ReplicaStoreOptions {
  /** Q, the ring's fixed partition count. */
  readonly partitionCount: number;
  /** fsync every write (durability against power loss, not only against a crashed process). */
  readonly sync: boolean;
  /** fsync the coordinator's own writes (`update`) even without `sync`: durability 'fsync-one'. */
  readonly syncUpdates?: boolean;
  /** `update` refuses to grow a key beyond this many siblings (TOO_MANY_SIBLINGS). `merge` never does. */
  readonly siblingsMax?: number;
  /** The clock that stamps the tombstone index; default Date.now. */
  readonly now?: () => number;
}

export interface UpdateHooks {
  /**
   * Called under the key's lock with the new state once it is decided, before it is written: the
   * coordinator starts sending it to the other replicas while its own copy is being written.
   */
  readonly beforeWrite?: (next: KeyState, encoded: Uint8Array) => void;
}

interface ChangeOptions extends UpdateHooks {
  readonly limitSiblings: boolean;
  readonly sync: boolean;
}

export interface ScanOptions {
  /** At most this many keys. */
  readonly limit?: number;
  /** Resume after this user key (exclusive), e.g. the last key of the previous page. */
  readonly afterKey?: string;
}

/** Decides under the key's lock whether a tombstone may go; `sinceMs` is when it last changed here. */
export type CollectTest = (state: KeyState, sinceMs: number) => boolean;

export class ReplicaStore {
  private readonly lock = new KeyLock();
  private readonly trees = new PartitionTrees((p, first, end) => {
    const { gte, lt } = bucketsRange(p, first, end);
    return this.scanSized(gte, lt);
  });
  private readonly now: () => number;
  private readonly commits: GroupCommit;

  constructor(
    private readonly engine: StorageEngine,
    private readonly options: ReplicaStoreOptions,
  ) {
    const q = options.partitionCount;
    if (!Number.isInteger(q) || q < 1 || q > PARTITION_COUNT_MAX) {
      throw new TesseraError(
        'BAD_REQUEST',
        `partitions must be a whole number from 1 to ${PARTITION_COUNT_MAX}.`,
      );
    }
    this.now = options.now ?? Date.now;
    this.commits = new GroupCommit(engine);
  }

  /**
   * Moves data written by an older Tessera to the current layout (once; later calls only check a
   * marker). Call before serving: until then such data is invisible.
   */
  open(): Promise<void> {
    return migrateLayout(this.engine, this.options.partitionCount, this.now(), this.options.sync);
  }

  async read(key: string): Promise<KeyState | undefined> {
    const bytes = await this.readEncoded(key);
    return bytes === undefined ? undefined : decodeStored(key, bytes);
  }

  /** The stored bytes as they are, to send to a peer without decoding and re-encoding. */
  async readEncoded(key: string): Promise<Uint8Array | undefined> {
    return this.engine.get('data', this.locate(key).dataKey);
  }

  /**
   * Replaces the key's state with `fn(stored)` (EMPTY_STATE when absent), atomically per key.
   * If `fn` throws, nothing is written; if it returns the stored state, nothing is written.
   */
  update(key: string, fn: (stored: KeyState) => KeyState, hooks: UpdateHooks = {}): Promise<KeyState> {
    const sync = this.options.sync || this.options.syncUpdates === true;
    return this.change(key, fn, { limitSiblings: true, sync, ...hooks });
  }

  /** Merges a state from a peer (replication, read repair, anti-entropy, handoff). Idempotent. */
  merge(key: string, incoming: KeyState): Promise<KeyState> {
    return this.change(key, (stored) => mergeStates(stored, incoming), {
      limitSiblings: false,
      sync: this.options.sync,
    });
  }

  /** The keys of one partition with their states, bucket by bucket, each bucket in key order. */
  async *scanPartition(partition: number, options: ScanOptions = {}): AsyncIterable<[string, KeyState]> {
    this.checkPartition(partition);
    const { gte, lt } = partitionRange(partition);
    yield* this.scan(options.afterKey === undefined ? gte : this.after(options.afterKey), lt, options.limit);
  }

  /** The keys of one Merkle bucket of a partition with their states, in key order (UTF-8 byte order). */
  async *scanBucket(
    partition: number,
    bucket: number,
    options: ScanOptions = {},
  ): AsyncIterable<[string, KeyState]> {
    this.checkPartition(partition);
    const { gte, lt } = bucketRange(partition, bucket);
    const from =
      options.afterKey === undefined ? gte : `${dataKey(partition, bucket, options.afterKey)}\u0000`;
    yield* this.scan(from, lt, options.limit);
  }

  /** The partition's Merkle tree, kept up to date from now on; the first call builds it. */
  merkleTree(partition: number): Promise<MerkleTree> {
    this.checkPartition(partition);
    return this.trees.tree(partition);
  }

  /**
   * Keys, tombstones and bytes stored, summed over the partitions counted so far (a partition is
   * counted when its Merkle tree is built, and kept up to date after): cheap, no scan.
   */
  stored(): StoredTally & { partitionsCounted: number } {
    return this.trees.tally();
  }

  /** Partitions whose Merkle tree is in memory. */
  get merkleTreeCount(): number {
    return this.trees.size;
  }

  /** The partition's tombstones with the time each last changed here, in key order. */
  async *scanTombstones(partition: number, options: ScanOptions = {}): AsyncIterable<[string, number]> {
    this.checkPartition(partition);
    const { gte, lt } = tombstoneRange(partition);
    const from = options.afterKey === undefined ? gte : `${tombstoneKey(partition, options.afterKey)}\u0000`;
    const range = options.limit === undefined ? { gte: from, lt } : { gte: from, lt, limit: options.limit };
    for await (const [indexKey, bytes] of this.engine.iterate('meta', range)) {
      yield [tombstoneUserKey(indexKey), decodeTimeMs(bytes) ?? this.now()];
    }
  }

  /**
   * Removes the key if it is still a tombstone and `test` agrees, checked under the key's lock.
   * A tombstone is not in the Merkle tree, so its removal leaves the tree as it is.
   */
  collectTombstone(key: string, test: CollectTest): Promise<boolean> {
    const at = this.locate(key);
    const indexKey = tombstoneKey(at.partition, key);
    return this.locked(at, async () => {
      const bytes = await this.engine.get('data', at.dataKey);
      const state = bytes === undefined ? undefined : decodeStored(key, bytes);
      const index = await this.engine.get('meta', indexKey);
      const sinceMs = index === undefined ? undefined : decodeTimeMs(index);
      if (state === undefined || !isTombstone(state)) {
        // An index entry without a tombstone behind it is stale: drop it.
        if (index !== undefined) await this.write([{ type: 'del', ns: 'meta', key: indexKey }]);
        return false;
      }
      if (sinceMs === undefined) {
        // A lost or damaged index entry: the tombstone's time here starts now.
        await this.write([{ type: 'put', ns: 'meta', key: indexKey, value: encodeTimeMs(this.now()) }]);
        return false;
      }
      if (!test(state, sinceMs)) return false;
      await this.write([
        { type: 'del', ns: 'data', key: at.dataKey },
        { type: 'del', ns: 'meta', key: indexKey },
      ]);
      this.trees.changed(at.partition, at.bucket, key, state, undefined, {
        before: bytes?.length,
        after: undefined,
      });
      return true;
    });
  }

  /**
   * Removes every key of a partition this node no longer replicates (after a ring change
   * committed), each under its key's lock, keeping the Merkle trees right. Answers how many went.
   */
  async dropPartition(partition: number, pageKeys = 256): Promise<number> {
    this.checkPartition(partition);
    let dropped = 0;
    for (;;) {
      const page: string[] = [];
      for await (const [key] of this.scanPartition(partition, { limit: pageKeys })) page.push(key);
      if (page.length === 0) return dropped;
      for (const key of page) if (await this.drop(key)) dropped++;
    }
  }

  /**
   * Removes `key` only if its state is still `handed` (the one this node handed over to the key's
   * replicas): a version that arrived since stays until it is handed over too. Answers whether it went.
   */
  dropIfUnchanged(key: string, handed: KeyState): Promise<boolean> {
    return this.drop(key, handed);
  }

  private drop(key: string, expected?: KeyState): Promise<boolean> {
    const at = this.locate(key);
    return this.locked(at, async () => {
      const bytes = await this.engine.get('data', at.dataKey);
      if (bytes === undefined) return false;
      const stored = decodeStored(key, bytes);
      if (expected !== undefined && !sameState(stored, expected)) return false;
      await this.write([
        { type: 'del', ns: 'data', key: at.dataKey },
        { type: 'del', ns: 'meta', key: tombstoneKey(at.partition, key) },
      ]);
      this.trees.changed(at.partition, at.bucket, key, stored, undefined, {
        before: bytes.length,
        after: undefined,
      });
      return true;
    });
  }

  private change(key: string, fn: (stored: KeyState) => KeyState, how: ChangeOptions): Promise<KeyState> {
    const at = this.locate(key);
    return this.locked(at, async () => {
      const bytes = await this.engine.get('data', at.dataKey);
      const stored = bytes === undefined ? EMPTY_STATE : decodeStored(key, bytes);
      const next = fn(stored);
      if (sameState(next, stored) && next.deletedAtMs === stored.deletedAtMs) return stored;
      if (how.limitSiblings) this.checkSiblings(key, stored, next);
      const encoded = encodeState(next);
      how.beforeWrite?.(next, encoded);
      const ops: BatchOp[] = [{ type: 'put', ns: 'data', key: at.dataKey, value: encoded }];
      const wasTombstone = isTombstone(stored);
      // Every change that leaves a tombstone restarts its collection clock (core restartsTombstoneClock).
      if (restartsTombstoneClock(stored, next))
        ops.push({
          type: 'put',
          ns: 'meta',
          key: tombstoneKey(at.partition, key),
          value: encodeTimeMs(this.now()),
        });
      else if (wasTombstone && !isTombstone(next))
        ops.push({ type: 'del', ns: 'meta', key: tombstoneKey(at.partition, key) });
      await this.write(ops, how.sync);
      this.trees.changed(at.partition, at.bucket, key, bytes === undefined ? undefined : stored, next, {
        before: bytes?.length,
        after: encoded.length,
      });
      return next;
    });
  }

  private write(ops: readonly BatchOp[], sync = this.options.sync): Promise<void> {
    return this.commits.write(ops, sync);
  }

  /** Runs `task` under the key's lock, counted as a change in flight for its Merkle bucket. */
  private locked<T>(at: Location, task: () => Promise<T>): Promise<T> {
    return this.lock.run(at.dataKey, async () => {
      const release = await this.trees.enter(at.partition, at.bucket);
      try {
        return await task();
      } finally {
        release();
      }
    });
  }

  private async *scan(gte: string, lt: string, limit: number | undefined): AsyncIterable<[string, KeyState]> {
    const range = limit === undefined ? { gte, lt } : { gte, lt, limit };
    for await (const [stored, bytes] of this.engine.iterate('data', range)) {
      const key = userKeyOf(stored);
      yield [key, decodeStored(key, bytes)];
    }
  }

  /** Like `scan`, with the stored bytes of each state (for the partition tallies). */
  private async *scanSized(gte: string, lt: string): AsyncIterable<[string, KeyState, number]> {
    for await (const [stored, bytes] of this.engine.iterate('data', { gte, lt })) {
      const key = userKeyOf(stored);
      yield [key, decodeStored(key, bytes), bytes.length];
    }
  }

  /** The first data key after `key` in its partition's scan order. */
  private after(key: string): string {
    return `${this.locate(key).dataKey}\u0000`;
  }

  /** Q, the partitions this store is laid out for. */
  get partitionCount(): number {
    return this.options.partitionCount;
  }

  private checkPartition(partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.options.partitionCount) {
      throw new TesseraError(
        'INTERNAL',
        `Partition ${partition} does not exist: partitions are 0 to ${this.options.partitionCount - 1}.`,
      );
    }
  }

  private checkSiblings(key: string, stored: KeyState, next: KeyState): void {
    const max = this.options.siblingsMax;
    if (max === undefined || next.siblings.length <= max || next.siblings.length <= stored.siblings.length)
      return;
    throw new TesseraError(
      'TOO_MANY_SIBLINGS',
      `Key "${key}" already has ${stored.siblings.length} siblings (limit ${max}). Read it, merge the siblings into one value, and write that with the read's context.`,
      { siblings: stored.siblings.length, siblingsMax: max },
    );
  }

  private locate(key: string): Location {
    return locate(this.options.partitionCount, key);
  }
}

/** Stored bytes that do not decode are damage on disk, not a bad request. */
export function decodeStored(key: string, bytes: Uint8Array): KeyState {
  try {
    return decodeState(bytes);
  } catch (err) {
    throw new TesseraError(
      'STORAGE_FAILURE',
      `The stored state of key "${key}" is corrupt (${err instanceof Error ? err.message : String(err)}). ` +
        'Delete the key on this node and let read repair or anti-entropy restore it from the other replicas.',
      { key },
      { cause: err },
    );
  }
}
