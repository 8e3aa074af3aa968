/** What a ReplicaStore is told: its options, a change's hooks and options, scans and tombstone collection. */
import type { KeyState } from '@tessera/core';
import type { KeyFilterStats } from './key-filter.js';
import type { Location } from './stored-keys.js';

export interface ReplicaStoreOptions {
  /** Q, the ring's fixed partition count. */
  readonly partitionCount: number;
  /** fsync every write (durability against power loss, not only against a crashed process). */
  readonly sync: boolean;
  /** fsync the coordinator's own writes (`update`) even without `sync`: durability 'fsync-one'. */
  readonly syncUpdates?: boolean;
  /** `update` refuses to grow a key beyond this many siblings (TOO_MANY_SIBLINGS). `merge` never does. */
  readonly siblingsMax?: number;
  /** `update` refuses to grow a key's encoded state beyond this many bytes (VALUE_TOO_LARGE). `merge` never does. */
  readonly stateBytesMax?: number;
  /** The clock that stamps the tombstone index; default Date.now. */
  readonly now?: () => number;
  /** Bound of the cache of recent states (state-cache.ts); 0 turns it off. */
  readonly stateCacheBytesMax?: number;
  /** How long a small group of writes may wait for more while writes keep coming (group-commit.ts). */
  readonly commitHoldMs?: number;
  /** Bound of the filter of stored keys (key-filter.ts); 0 turns it off. */
  readonly keyFilterBytesMax?: number;
  /** Called once per open when the filter of stored keys passes its bound and stops answering. */
  readonly onKeyFilterSaturated?: (stats: KeyFilterStats) => void;
}

/** A state and the bytes it was decoded from (bytes of their own: stored and cached as they are). */
export interface ReceivedState {
  readonly state: KeyState;
  readonly bytes: Uint8Array;
}

export interface UpdateHooks {
  /**
   * Called under the key's lock with the new state once it is decided, before it is written: the
   * coordinator starts sending it to the other replicas while its own copy is being written.
   */
  readonly beforeWrite?: (next: KeyState, encoded: Uint8Array) => void;
  /**
   * Called under the key's lock, before any later change to the key is applied, when the change
   * is not stored after its `beforeWrite` ran (its write failed, or `beforeWrite` threw): what
   * `beforeWrite` sent out may be on other replicas but is not here.
   */
  readonly notStored?: (error: unknown) => void;
}

export interface ChangeOptions extends UpdateHooks {
  readonly limitSiblings: boolean;
  readonly sync: boolean;
  /**
   * A state received as bytes (a replica's copy of a new version): when the change leaves exactly
   * that state (a key this node did not hold), those bytes are written instead of encoding it again.
   */
  readonly received?: ReceivedState;
}

export interface ScanOptions {
  /** At most this many keys. */
  readonly limit?: number;
  /** Resume after this user key (exclusive), e.g. the last key of the previous page. */
  readonly afterKey?: string;
}

/** A key and its place, located once per change. */
export interface Located {
  readonly key: string;
  readonly at: Location;
}

/** Decides under the key's lock whether a tombstone may go; `sinceMs` is when it last changed here. */
export type CollectTest = (state: KeyState, sinceMs: number) => boolean;
