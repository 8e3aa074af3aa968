/** Range scans of a replica's stored data and tombstone index (ReplicaStore's scans share these). */
import { type KeyState, TesseraError } from '@tessera/core';
import type { StorageEngine } from './engine.js';
import { decodeTimeMs, tombstoneKey, tombstoneRange, tombstoneUserKey, userKeyOf } from './stored-keys.js';
import { decodeStored } from './stored-state.js';

/** The keys stored in [gte, lt) with their states, in stored order; at most `limit`. */
export async function* scanStates(
  engine: StorageEngine,
  gte: string,
  lt: string,
  limit: number | undefined,
): AsyncIterable<[string, KeyState]> {
  const range = limit === undefined ? { gte, lt } : { gte, lt, limit };
  for await (const [stored, bytes] of engine.iterate('data', range)) {
    const key = userKeyOf(stored);
    yield [key, decodeStored(key, bytes)];
  }
}

/** Like `scanStates`, with the stored bytes of each state (for the partition tallies). */
export async function* scanSizedStates(
  engine: StorageEngine,
  gte: string,
  lt: string,
): AsyncIterable<[string, KeyState, number]> {
  for await (const [stored, bytes] of engine.iterate('data', { gte, lt })) {
    const key = userKeyOf(stored);
    yield [key, decodeStored(key, bytes), bytes.length];
  }
}

/** A partition's tombstones with the time each last changed here (`now` when unreadable), in key order. */
export async function* scanTombstoneIndex(
  engine: StorageEngine,
  partition: number,
  options: { readonly afterKey?: string; readonly limit?: number },
  now: () => number,
): AsyncIterable<[string, number]> {
  const { gte, lt } = tombstoneRange(partition);
  const from = options.afterKey === undefined ? gte : `${tombstoneKey(partition, options.afterKey)}\u0000`;
  const range = options.limit === undefined ? { gte: from, lt } : { gte: from, lt, limit: options.limit };
  for await (const [indexKey, bytes] of engine.iterate('meta', range)) {
    yield [tombstoneUserKey(indexKey), decodeTimeMs(bytes) ?? now()];
  }
}

export function checkPartition(partitionCount: number, partition: number): void {
  if (!Number.isInteger(partition) || partition < 0 || partition >= partitionCount) {
    throw new TesseraError(
      'INTERNAL',
      `Partition ${partition} does not exist: partitions are 0 to ${partitionCount - 1}.`,
    );
  }
}
