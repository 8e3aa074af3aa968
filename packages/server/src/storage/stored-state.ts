/** A key's state as ReplicaStore reads it from the engine, and the errors about what it holds. */
import { decodeState, isTombstone, type KeyState, restartsTombstoneClock, TesseraError } from '@tessera/core';
import type { BatchOp } from './engine.js';
import { encodeTimeMs } from './stored-keys.js';

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

/** `update` refuses to grow a key past `siblingsMax` siblings; `merge` never does. */
export function checkSiblings(key: string, stored: KeyState, next: KeyState, max: number | undefined): void {
  if (max === undefined || next.siblings.length <= max || next.siblings.length <= stored.siblings.length)
    return;
  throw new TesseraError(
    'TOO_MANY_SIBLINGS',
    `Key "${key}" already has ${stored.siblings.length} siblings (limit ${max}). Read it, merge the siblings into one value, and write that with the read's context.`,
    { siblings: stored.siblings.length, siblingsMax: max },
  );
}

/**
 * `update` refuses to grow a key's encoded state past `max` bytes (one peer message must carry it
 * to the other replicas); a write that shrinks or keeps its size passes, so siblings can always be
 * resolved. `merge` never refuses.
 */
export function checkStateBytes(
  key: string,
  beforeBytes: number,
  nextBytes: number,
  max: number | undefined,
): void {
  if (max === undefined || nextBytes <= max || nextBytes <= beforeBytes) return;
  throw new TesseraError(
    'VALUE_TOO_LARGE',
    `Key "${key}" would hold ${nextBytes} bytes with this write (its siblings and clock), more than the ${max} one replication message carries. Read it, merge the siblings into one value, and write that with the read's context, or store large blobs elsewhere.`,
    { bytes: nextBytes, stateBytesMax: max },
  );
}

/**
 * The change to the tombstone index (at `indexKey`) that goes with `stored` becoming `next`: every
 * change that leaves a tombstone restarts its collection clock (core restartsTombstoneClock); a
 * tombstone replaced by a value leaves the index.
 */
export function tombstoneIndexOp(
  indexKey: string,
  stored: KeyState,
  next: KeyState,
  now: () => number,
): BatchOp | undefined {
  if (restartsTombstoneClock(stored, next))
    return { type: 'put', ns: 'meta', key: indexKey, value: encodeTimeMs(now()) };
  if (isTombstone(stored) && !isTombstone(next)) return { type: 'del', ns: 'meta', key: indexKey };
  return undefined;
}
