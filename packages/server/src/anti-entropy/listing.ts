/**
 * The live keys of some Merkle buckets with their state digests, bucket after bucket, stopping
 * before a bucket that would go past the bounds: the listing always covers whole buckets, so
 * comparing two listings of the same buckets names exactly the keys that differ.
 */
import { type StateDigest, treeDigest } from '@tessera/core';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { KeyDigest, MerkleKeysReply } from '../transport/peer-api.js';

/** Bytes one entry adds to a reply besides its key: the digest and protobuf framing. */
const ENTRY_OVERHEAD_BYTES = 24;

export interface ListingBounds {
  readonly keysMax: number;
  readonly bytesMax: number;
}

export async function listBuckets(
  store: ReplicaStore,
  partition: number,
  buckets: readonly number[],
  bounds: ListingBounds,
): Promise<MerkleKeysReply> {
  const entries: KeyDigest[] = [];
  let bytes = 0;
  let bucketsDone = 0;
  for (const bucket of buckets) {
    const inBucket: KeyDigest[] = [];
    let bucketBytes = 0;
    let fits = true;
    for await (const [key, state] of store.scanBucket(partition, bucket)) {
      const digest = treeDigest(state);
      if (digest === undefined) continue;
      inBucket.push({ key, digest });
      bucketBytes += key.length * 3 + ENTRY_OVERHEAD_BYTES;
      if (entries.length + inBucket.length > bounds.keysMax || bytes + bucketBytes > bounds.bytesMax) {
        fits = false;
        break;
      }
    }
    if (!fits) break;
    entries.push(...inBucket);
    bytes += bucketBytes;
    bucketsDone++;
  }
  return { entries, bucketsDone };
}

export function digestMap(entries: readonly KeyDigest[]): Map<string, StateDigest> {
  return new Map(entries.map((e) => [e.key, e.digest]));
}
