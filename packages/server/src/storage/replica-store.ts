/**
 * A replica's versioned data on top of a StorageEngine. Each key's state is stored encoded (core
 * `encodeState`) in the 'data' namespace under `<partition as 4 lowercase hex digits>/<key>`, so
 * one partition's keys are one contiguous range (for anti-entropy and partition transfers).
 *
 * Every change to a key is a read-modify-write under a per-key lock: two concurrent writes to
 * one key never lose an update, and writes to different keys run in parallel.
 */
import {
  decodeState,
  EMPTY_STATE,
  encodeState,
  type KeyState,
  mergeStates,
  PARTITION_COUNT_MAX,
  partitionOf,
  sameState,
  TesseraError,
} from '@tessera/core';
import type { StorageEngine } from './engine.js';
import { KeyLock } from './key-lock.js';

export interface ReplicaStoreOptions {
  /** Q, the ring's fixed partition count. */
  readonly partitionCount: number;
  /** fsync every write (durability against power loss, not only against a crashed process). */
  readonly sync: boolean;
  /** `update` refuses to grow a key beyond this many siblings (TOO_MANY_SIBLINGS). `merge` never does. */
  readonly siblingsMax?: number;
}

export interface ScanOptions {
  /** At most this many keys. */
  readonly limit?: number;
  /** Resume after this user key (exclusive), e.g. the last key of the previous page. */
  readonly afterKey?: string;
}

const PARTITION_HEX_DIGITS = 4;
/** The separator after the partition prefix, and the character after it, which ends the range. */
const SEPARATOR = '/';
const SEPARATOR_NEXT = '0';

export class ReplicaStore {
  private readonly lock = new KeyLock();

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
  }

  async read(key: string): Promise<KeyState | undefined> {
    const bytes = await this.readEncoded(key);
    return bytes === undefined ? undefined : decodeStored(key, bytes);
  }

  /** The stored bytes as they are, to send to a peer without decoding and re-encoding. */
  async readEncoded(key: string): Promise<Uint8Array | undefined> {
    return this.engine.get('data', this.storedKey(key));
  }

  /**
   * Replaces the key's state with `fn(stored)` (EMPTY_STATE when absent), atomically per key.
   * If `fn` throws, nothing is written; if it returns the stored state, nothing is written.
   */
  update(key: string, fn: (stored: KeyState) => KeyState): Promise<KeyState> {
    return this.change(key, fn, true);
  }

  /** Merges a state from a peer (replication, read repair, anti-entropy, handoff). Idempotent. */
  merge(key: string, incoming: KeyState): Promise<KeyState> {
    return this.change(key, (stored) => mergeStates(stored, incoming), false);
  }

  /** The keys of one partition with their states, in key order (UTF-8 byte order). */
  async *scanPartition(partition: number, options: ScanOptions = {}): AsyncIterable<[string, KeyState]> {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.options.partitionCount) {
      throw new TesseraError(
        'INTERNAL',
        `Partition ${partition} does not exist: partitions are 0 to ${this.options.partitionCount - 1}.`,
      );
    }
    const prefix = partitionPrefix(partition);
    const gte =
      options.afterKey === undefined ? prefix + SEPARATOR : `${prefix}${SEPARATOR}${options.afterKey}\u0000`;
    const lt = prefix + SEPARATOR_NEXT;
    const range = options.limit === undefined ? { gte, lt } : { gte, lt, limit: options.limit };
    const start = prefix.length + SEPARATOR.length;
    for await (const [stored, bytes] of this.engine.iterate('data', range)) {
      const key = stored.slice(start);
      yield [key, decodeStored(key, bytes)];
    }
  }

  private change(key: string, fn: (stored: KeyState) => KeyState, limitSiblings: boolean): Promise<KeyState> {
    const storedKey = this.storedKey(key);
    return this.lock.run(storedKey, async () => {
      const bytes = await this.engine.get('data', storedKey);
      const stored = bytes === undefined ? EMPTY_STATE : decodeStored(key, bytes);
      const next = fn(stored);
      if (sameState(next, stored)) return stored;
      if (limitSiblings) this.checkSiblings(key, stored, next);
      await this.engine.batch([{ type: 'put', ns: 'data', key: storedKey, value: encodeState(next) }], {
        sync: this.options.sync,
      });
      return next;
    });
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

  private storedKey(key: string): string {
    return partitionPrefix(partitionOf(this.options.partitionCount, key)) + SEPARATOR + key;
  }
}

function partitionPrefix(partition: number): string {
  return partition.toString(16).padStart(PARTITION_HEX_DIGITS, '0');
}

/** Stored bytes that do not decode are damage on disk, not a bad request. */
function decodeStored(key: string, bytes: Uint8Array): KeyState {
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
