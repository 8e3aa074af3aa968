/**
 * Where a replica's data lives in the storage engine (layout 2).
 *
 * - A key's state: namespace `data`, key `<partition: 4 hex>:<bucket: 3 hex>/<key>`, e.g.
 *   `0003:1f2/cart:7`. One partition is one contiguous range, and so is each of its Merkle
 *   buckets: anti-entropy reads one bucket without scanning the partition.
 * - The tombstone index: namespace `meta`, key `tombstone/<partition: 4 hex>/<key>`, value the
 *   time (ms, decimal) this replica's state of the key last became a tombstone. Garbage collection
 *   reads it instead of scanning the data.
 * - Layout 1 stored a state under `<partition>/<key>`; `migrateLayout` moves such keys once.
 *   Layout 2 keys never fall in a layout 1 range: `:` sorts after `0`, the end of `<partition>/`.
 */
import { MERKLE_BUCKETS, PARTITION_COUNT_MAX, placeOf, TesseraError } from '@tessera/core';

const PARTITION_HEX_DIGITS = 4;
const BUCKET_HEX_DIGITS = 3;
/** Characters before the user key in a data key: `pppp:bbb/`. */
const DATA_PREFIX_CHARS = PARTITION_HEX_DIGITS + 1 + BUCKET_HEX_DIGITS + 1;
const TOMBSTONE_PREFIX = 'tombstone/';

export interface Range {
  readonly gte: string;
  readonly lt: string;
}

/** A key's place: its partition, its Merkle bucket and its storage key. */
export interface Location {
  readonly partition: number;
  readonly bucket: number;
  readonly dataKey: string;
  /** A 32-bit hash of the key (its ring position): what the store's lock table is keyed by. */
  readonly hash: number;
}

export function locate(partitionCount: number, key: string): Location {
  const [partition, bucket, position] = placeOf(partitionCount, key);
  return { partition, bucket, dataKey: dataKey(partition, bucket, key), hash: position };
}

/** `pppp:` per partition, made on first use (every stored write builds a data key). */
const partitionPrefixes: string[] = [];
/** `bbb/` per Merkle bucket. */
const bucketSuffixes: readonly string[] = Array.from(
  { length: MERKLE_BUCKETS },
  (_, b) => `${hex(b, BUCKET_HEX_DIGITS)}/`,
);

export function dataKey(partition: number, bucket: number, key: string): string {
  let p = partitionPrefixes[partition];
  if (p === undefined) {
    p = `${hex(partition, PARTITION_HEX_DIGITS)}:`;
    if (Number.isInteger(partition) && partition >= 0 && partition < PARTITION_COUNT_MAX)
      partitionPrefixes[partition] = p;
  }
  return p + (bucketSuffixes[bucket] ?? `${hex(bucket, BUCKET_HEX_DIGITS)}/`) + key;
}

/** The user key of a data key. */
export function userKeyOf(storedKey: string): string {
  return storedKey.slice(DATA_PREFIX_CHARS);
}

/** Every key of a partition, bucket by bucket. `:` is followed by `;`. */
export function partitionRange(partition: number): Range {
  const p = hex(partition, PARTITION_HEX_DIGITS);
  return { gte: `${p}:`, lt: `${p};` };
}

/** Every key of one Merkle bucket of a partition. `/` is followed by `0`. */
export function bucketRange(partition: number, bucket: number): Range {
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= MERKLE_BUCKETS) {
    throw new TesseraError('INTERNAL', `Merkle buckets are 0 to ${MERKLE_BUCKETS - 1}, not ${bucket}.`);
  }
  const prefix = `${hex(partition, PARTITION_HEX_DIGITS)}:${hex(bucket, BUCKET_HEX_DIGITS)}`;
  return { gte: `${prefix}/`, lt: `${prefix}0` };
}

/** Every key of Merkle buckets `first` (inclusive) to `end` (exclusive) of a partition. */
export function bucketsRange(partition: number, first: number, end: number): Range {
  if (
    !(Number.isInteger(first) && Number.isInteger(end) && first >= 0 && first < end && end <= MERKLE_BUCKETS)
  ) {
    throw new TesseraError(
      'INTERNAL',
      `Bucket range ${first} to ${end} is not within 0 to ${MERKLE_BUCKETS}.`,
    );
  }
  const p = hex(partition, PARTITION_HEX_DIGITS);
  return { gte: `${p}:${hex(first, BUCKET_HEX_DIGITS)}/`, lt: `${p}:${hex(end, BUCKET_HEX_DIGITS)}/` };
}

export function tombstoneKey(partition: number, key: string): string {
  return `${TOMBSTONE_PREFIX}${hex(partition, PARTITION_HEX_DIGITS)}/${key}`;
}

export function tombstoneRange(partition: number): Range {
  const prefix = `${TOMBSTONE_PREFIX}${hex(partition, PARTITION_HEX_DIGITS)}`;
  return { gte: `${prefix}/`, lt: `${prefix}0` };
}

/** The user key of a tombstone index key. */
export function tombstoneUserKey(indexKey: string): string {
  return indexKey.slice(TOMBSTONE_PREFIX.length + PARTITION_HEX_DIGITS + 1);
}

/** Layout 1: one partition's keys were `<partition>/<key>`. */
export function legacyPartitionRange(partition: number): Range {
  const p = hex(partition, PARTITION_HEX_DIGITS);
  return { gte: `${p}/`, lt: `${p}0` };
}

export function legacyUserKeyOf(storedKey: string): string {
  return storedKey.slice(PARTITION_HEX_DIGITS + 1);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeTimeMs(timeMs: number): Uint8Array {
  return encoder.encode(String(timeMs));
}

/** The time of a tombstone index entry; undefined if it is not a whole number. */
export function decodeTimeMs(bytes: Uint8Array): number | undefined {
  const n = Number(decoder.decode(bytes));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function hex(n: number, digits: number): string {
  return n.toString(16).padStart(digits, '0');
}
