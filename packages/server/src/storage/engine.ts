/**
 * The pluggable persistence layer (paper section 5): a small interface every engine implements.
 * Keys are strings, values bytes. Namespaces keep primary data, hints and node metadata apart.
 * The conformance suite every engine must pass is `src/conformance/` (`@tessera/server/conformance`).
 */

export type Namespace = 'data' | 'hints' | 'meta';

/** One write of a batch: a put of `value`, or a delete. */
export type BatchOp =
  | { readonly type: 'put'; readonly ns: Namespace; readonly key: string; readonly value: Uint8Array }
  | { readonly type: 'del'; readonly ns: Namespace; readonly key: string };

export interface KeyRange {
  /** Inclusive lower bound. */
  readonly gte?: string;
  /** Exclusive upper bound. */
  readonly lt?: string;
  /** At most this many entries. */
  readonly limit?: number;
}

export interface WriteOptions {
  /** fsync before resolving: survives an OS crash or power loss, not only a process crash. */
  readonly sync?: boolean;
}

/** One entry of a whole-engine snapshot: its namespace, key and value. */
export type SnapshotEntry = readonly [ns: Namespace, key: string, value: Uint8Array];

export interface StorageEngine {
  /** A name for logs and metrics, e.g. "leveldb" or "memory". */
  readonly kind: string;
  open(): Promise<void>;
  close(): Promise<void>;
  get(ns: Namespace, key: string): Promise<Uint8Array | undefined>;
  /** Applies every op or none. */
  batch(ops: readonly BatchOp[], options?: WriteOptions): Promise<void>;
  /**
   * Entries of one namespace in key order: Unicode code point order, which is the byte order of
   * the keys' UTF-8 (what LevelDB sorts by). Keys and bounds must be well-formed Unicode (no lone
   * surrogates): they are stored as UTF-8, so an engine rejects them with INVALID_KEY.
   */
  iterate(ns: Namespace, range?: KeyRange): AsyncIterable<[string, Uint8Array]>;
  /**
   * The keys `iterate` would yield, in the same order, in batches of any size (none empty), without
   * their values: for scans that need only keys (the key filter's, at every open). Optional: without
   * it such scans read the values too (`keysOf` in base-engine.ts).
   */
  keys?(ns: Namespace, range?: KeyRange): AsyncIterable<readonly string[]>;
  /**
   * Every entry of every namespace as of one instant (a point-in-time copy while writes go on), in
   * namespace then key order; for backups (storage/snapshot.ts). Optional: an engine without it
   * cannot be snapshotted.
   */
  snapshot?(): AsyncIterable<SnapshotEntry>;
}
