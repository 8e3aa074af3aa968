/**
 * A replica's versioned data on top of a StorageEngine. Each key's state is stored encoded (core
 * `encodeState`) in the 'data' namespace under `<partition>:<bucket>/<key>` (see stored-keys.ts),
 * so one partition, and each Merkle bucket of it, is one contiguous range.
 *
 * Every change to a key is a read-modify-write under a per-key lock: two concurrent writes to
 * one key never lose an update, and writes to different keys run in parallel; the changes that
 * queue for a key while it is busy are applied and written as one group (group-write.ts). Each
 * change also updates the partition's Merkle tree (partition-trees.ts) and the tombstone index,
 * the latter in the same atomic batch as the state. Concurrent changes reach the engine
 * together, as one batch per tick (group-commit.ts). Reads go to memory first (stored-states.ts):
 * a write-through cache of recent states, updated only under the key's lock once the engine write
 * committed, and a filter of the stored keys, so a key the engine certainly does not hold reads
 * as absent.
 */
import {
  isTombstone,
  type KeyState,
  type MerkleTree,
  mergeStates,
  PARTITION_COUNT_MAX,
  sameState,
  TesseraError,
} from '@tessera/core';
import { promised } from '../util/promised.js';
import { ChangeQueue, type QueuedChange } from './change-queue.js';
import type { BatchOp, StorageEngine } from './engine.js';
import { GroupCommit } from './group-commit.js';
import { type GroupWriteDeps, writeGroup } from './group-write.js';
import type { KeyFilterStats } from './key-filter.js';
import { KeyLock } from './key-lock.js';
import { migrateLayout } from './layout.js';
import { PartitionTrees, type StoredTally } from './partition-trees.js';
import { checkPartition, scanSizedStates, scanStates, scanTombstoneIndex } from './replica-scans.js';
import type {
  ChangeOptions,
  CollectTest,
  Located,
  ReplicaStoreOptions,
  ScanOptions,
  UpdateHooks,
} from './replica-store-options.js';
import type { CachedState, StateCacheStats } from './state-cache.js';
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
} from './stored-keys.js';
import { StoredStates } from './stored-states.js';
import type { StoredVersion } from './stored-version.js';

export class ReplicaStore {
  private readonly lock = new KeyLock<QueuedChange<ChangeOptions>[]>();
  private readonly trees = new PartitionTrees((p, first, end) => {
    const { gte, lt } = bucketsRange(p, first, end);
    return scanSizedStates(this.engine, gte, lt);
  });
  private readonly now: () => number;
  private readonly commits: GroupCommit;
  private readonly states: StoredStates;
  private readonly changes = new ChangeQueue<ChangeOptions, Located>(this.lock, ({ key, at }, group) =>
    writeGroup(this.groupWrite, key, at, group),
  );
  private readonly groupWrite: GroupWriteDeps;

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
    this.commits = new GroupCommit(engine, { holdMs: options.commitHoldMs ?? 0 });
    this.states = new StoredStates(engine, options);
    this.groupWrite = {
      trees: this.trees,
      states: this.states,
      options,
      now: this.now,
      writeData: (key, bytes, ops, sync) => this.writeData(key, bytes, ops, sync),
    };
  }

  /**
   * Moves data written by an older Tessera to the current layout (once; later calls only check a
   * marker). Call before serving: until then such data is invisible.
   */
  async open(): Promise<void> {
    await migrateLayout(this.engine, this.options.partitionCount, this.now(), this.options.sync);
    this.states.open();
  }

  /** Settles when the key filter's scan has ended (or failed): for tests and benchmarks. */
  keyFilterBuilt(): Promise<void> {
    return this.states.filterBuilt();
  }

  /** Keys, memory and readiness of the filter of stored keys, and the reads it saved. */
  keyFilterStats(): KeyFilterStats {
    return this.states.keyFilterStats();
  }

  /** The stored state; frozen (it may be the cached one): never change it, nor its values' bytes. */
  read(key: string): Promise<KeyState | undefined> {
    return this.loaded(key, (entry) => (entry.bytes === undefined ? undefined : this.decoded(key, entry)));
  }

  /**
   * The stored state as its bytes (the cache's own: never change them), decoded on demand (the
   * decode is cached too): a quorum read compares replicas' bytes before decoding any.
   */
  readVersion(key: string): Promise<StoredVersion | undefined> {
    return this.loaded(key, (entry) =>
      entry.bytes === undefined ? undefined : { bytes: entry.bytes, state: () => this.decoded(key, entry) },
    );
  }

  /** The stored bytes as they are (a copy), to send to a peer without decoding and re-encoding. */
  readEncoded(key: string): Promise<Uint8Array | undefined> {
    return this.loaded(key, (entry) => entry.bytes?.slice());
  }

  /**
   * `answer` of the key's stored entry, read as a read (it fills the cache). Memory answers a
   * cached or certainly absent key at once: no await, no async frame (every get runs this on each
   * replica). What throws rejects.
   */
  private loaded<T>(key: string, answer: (entry: CachedState) => T): Promise<T> {
    return promised(() => {
      const at = this.locate(key);
      const now = this.states.loadNow(key, at.dataKey);
      if (now !== undefined) return Promise.resolve(answer(now));
      return this.load(key, at, true).then(answer);
    });
  }

  /** Hits, misses, evictions and size of the cache of recent states. */
  cacheStats(): StateCacheStats {
    return this.states.cacheStats();
  }

  /**
   * Replaces the key's state with `fn(stored)` (EMPTY_STATE when absent), atomically per key.
   * If `fn` throws, nothing is written; if it returns the stored state, nothing is written.
   */
  update(key: string, fn: (stored: KeyState) => KeyState, hooks: UpdateHooks = {}): Promise<KeyState> {
    const sync = this.options.sync || this.options.syncUpdates === true;
    return this.change(key, fn, { limitSiblings: true, sync, ...hooks });
  }

  /**
   * Merges a state from a peer (replication, read repair, anti-entropy, handoff). Idempotent.
   * `bytes`, when given, are what `incoming` was decoded from, owned by the store from now on.
   */
  merge(key: string, incoming: KeyState, bytes?: Uint8Array): Promise<KeyState> {
    return this.change(key, (stored) => mergeStates(stored, incoming), {
      limitSiblings: false,
      sync: this.options.sync,
      ...(bytes === undefined ? {} : { received: { state: incoming, bytes } }),
    });
  }

  /** The keys of one partition with their states, bucket by bucket, each bucket in key order. */
  async *scanPartition(partition: number, options: ScanOptions = {}): AsyncIterable<[string, KeyState]> {
    this.checkPartition(partition);
    const { gte, lt } = partitionRange(partition);
    const from = options.afterKey === undefined ? gte : `${this.locate(options.afterKey).dataKey}\u0000`;
    yield* scanStates(this.engine, from, lt, options.limit);
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
    yield* scanStates(this.engine, from, lt, options.limit);
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
    yield* scanTombstoneIndex(this.engine, partition, options, this.now);
  }

  /**
   * Removes the key if it is still a tombstone and `test` agrees, checked under the key's lock.
   * A tombstone is not in the Merkle tree, so its removal leaves the tree as it is.
   */
  collectTombstone(key: string, test: CollectTest): Promise<boolean> {
    const at = this.locate(key);
    const indexKey = tombstoneKey(at.partition, key);
    return this.locked(at, async () => {
      const entry = await this.load(key, at);
      const bytes = entry.bytes;
      const state = bytes === undefined ? undefined : this.decoded(key, entry);
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
      await this.writeData(key, undefined, [
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
      const entry = await this.load(key, at);
      const bytes = entry.bytes;
      if (bytes === undefined) return false;
      const stored = this.decoded(key, entry);
      if (expected !== undefined && !sameState(stored, expected)) return false;
      await this.writeData(key, undefined, [
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

  /** Queues the change; changes queued while the key is busy are written together (change-queue.ts). */
  private change(key: string, fn: (stored: KeyState) => KeyState, how: ChangeOptions): Promise<KeyState> {
    const at = this.locate(key);
    return this.changes.submit({ key, at }, at.dataKey, at.hash, fn, how);
  }

  private write(ops: readonly BatchOp[], sync = this.options.sync): Promise<void> {
    return this.commits.write(ops, sync);
  }

  /** Writes `ops`, which leave the key's state `bytes`; under the key's lock. */
  private writeData(
    key: string,
    bytes: Uint8Array | undefined,
    ops: BatchOp[],
    sync?: boolean,
  ): Promise<void> {
    this.states.writing(ops);
    return this.write(ops, sync).then(
      () => this.states.written(key, bytes),
      (err: unknown) => {
        this.states.unknown(key); // it may or may not have been written
        throw err;
      },
    );
  }

  /** The key's stored state, from the cache or the engine; a read (not a write's) fills the cache. */
  private load(key: string, at?: Location, fill = at === undefined): Promise<CachedState> {
    return this.states.load(key, (at ?? this.locate(key)).dataKey, fill);
  }

  private decoded(key: string, entry: CachedState): KeyState {
    return this.states.decoded(key, entry);
  }

  /** Runs `task` under the key's lock, counted as a change in flight for its Merkle bucket. */
  private locked<T>(at: Location, task: () => Promise<T>): Promise<T> {
    this.changes.close(at.dataKey, at.hash);
    return this.lock.run(at.dataKey, at.hash, async () => {
      const release = await this.trees.enter(at.partition, at.bucket);
      try {
        return await task();
      } finally {
        release();
      }
    });
  }

  /** Q, the partitions this store is laid out for. */
  get partitionCount(): number {
    return this.options.partitionCount;
  }

  private checkPartition(partition: number): void {
    checkPartition(this.options.partitionCount, partition);
  }

  private locate(key: string): Location {
    return locate(this.options.partitionCount, key);
  }
}
