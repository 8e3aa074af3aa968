/**
 * One anti-entropy exchange of one partition with one other replica (paper 4.7): compare the two
 * Merkle trees top-down (root, then the children of differing nodes only, down to the buckets),
 * list the live keys of the differing buckets on both sides, and repair exactly the keys whose
 * digests differ, both ways: read the peer's state and merge it here (pull), then send the merged
 * state back when the peer's differs (push). Everything is bounded (ExchangeLimits) and every
 * repaired key first takes a unit from the admission gate.
 */
import {
  bucketOf,
  decodePeerState,
  differingBuckets,
  diffKeyDigests,
  encodeState,
  isTombstone,
  type KeyState,
  partitionOf,
  sameState,
  TesseraError,
} from '@tessera/core';
import type { ReplicaStore } from '../storage/replica-store.js';
import { isKeyFailure } from '../util/key-failure.js';
import { digestMap, listBuckets } from './listing.js';
import type { AntiEntropyClient, BackgroundGate, ExchangeLimits, TransferCounts } from './types.js';

export interface ExchangeDeps {
  /** Q, the ring's partition count. */
  readonly partitionCount: number;
  readonly store: ReplicaStore;
  readonly client: AntiEntropyClient;
  readonly gate: BackgroundGate;
  readonly limits: ExchangeLimits;
}

export interface ExchangeReport extends TransferCounts {
  /** True when every difference found was repaired: the two replicas were in sync at the end. */
  readonly complete: boolean;
  /** The first key that could not be repaired (`keysFailed` counts them all), and why. */
  readonly keyFailure?: { readonly key: string; readonly error: TesseraError };
}

interface Counts {
  bucketsDiffering: number;
  keysDiffering: number;
  keysPulled: number;
  keysPushed: number;
  keysFailed: number;
  bytesSent: number;
  bytesReceived: number;
  keyFailure?: { readonly key: string; readonly error: TesseraError };
}

/**
 * Runs one exchange; a failed peer call or store operation rejects, while a key whose state
 * cannot be repaired (util/key-failure.ts) is skipped and reported.
 */
export async function exchangePartition(partition: number, deps: ExchangeDeps): Promise<ExchangeReport> {
  const { store, client, limits } = deps;
  const counts: Counts = {
    bucketsDiffering: 0,
    keysDiffering: 0,
    keysPulled: 0,
    keysPushed: 0,
    keysFailed: 0,
    bytesSent: 0,
    bytesReceived: 0,
  };
  const tree = await store.merkleTree(partition);
  const buckets = await differingBuckets(tree, async (level, indices) => {
    const hashes = await client.merkleHashes(partition, level, indices, limits.timeoutMs);
    counts.bytesReceived += hashes.length;
    return hashes;
  });
  counts.bucketsDiffering = buckets.length;
  if (buckets.length === 0) return { ...counts, complete: true };
  const { keys, listedAll } = await differingKeys(partition, buckets, deps, counts);
  counts.keysDiffering = keys.length;
  const repairedAll = await repairKeys(keys.slice(0, limits.keysPerExchangeMax), deps, counts);
  const complete =
    listedAll && repairedAll && counts.keysFailed === 0 && keys.length <= limits.keysPerExchangeMax;
  return { ...counts, complete };
}

/** The differing keys of the differing buckets; `listedAll` is false if a bucket was too large to list. */
async function differingKeys(
  partition: number,
  buckets: readonly number[],
  deps: ExchangeDeps,
  counts: Counts,
): Promise<{ keys: string[]; listedAll: boolean }> {
  const { store, client, limits } = deps;
  const keys: string[] = [];
  let rest = buckets;
  while (rest.length > 0 && keys.length <= limits.keysPerExchangeMax) {
    const ask = rest.slice(0, limits.bucketsPerCallMax);
    const theirs = await client.merkleKeys(
      { partition, buckets: ask, keysMax: limits.keysPerCallMax },
      limits.timeoutMs,
    );
    for (const e of theirs.entries) counts.bytesReceived += e.key.length + e.digest.length;
    if (theirs.bucketsDone === 0) return { keys, listedAll: false };
    const done = ask.slice(0, theirs.bucketsDone);
    checkListing(partition, done, theirs.entries, deps.partitionCount);
    // Our own listing of the same buckets is not bounded by the peer's reply size.
    const ours = await listBuckets(store, partition, done, {
      keysMax: Number.MAX_SAFE_INTEGER,
      bytesMax: Number.MAX_SAFE_INTEGER,
    });
    keys.push(...diffKeyDigests(digestMap(ours.entries), digestMap(theirs.entries)));
    rest = rest.slice(done.length);
  }
  return { keys, listedAll: rest.length === 0 };
}

/** A peer may list only keys of the buckets it says it listed: anything else is its bug. */
function checkListing(
  partition: number,
  buckets: readonly number[],
  entries: readonly { readonly key: string }[],
  partitionCount: number,
): void {
  const asked = new Set(buckets);
  const stray = entries.find(
    (e) => !asked.has(bucketOf(e.key)) || partitionOf(partitionCount, e.key) !== partition,
  );
  if (stray !== undefined) {
    throw new TesseraError(
      'INTERNAL',
      `The peer listed key "${stray.key.slice(0, 100)}", which is not in partition ${partition} and the buckets asked for.`,
      { partition },
    );
  }
}

/**
 * Repairs `keys` with a few workers; false if the gate or the byte bound stopped it early. A key
 * that cannot be repaired is counted and skipped; every other failure stops every worker and is
 * thrown once all have stopped.
 */
async function repairKeys(keys: readonly string[], deps: ExchangeDeps, counts: Counts): Promise<boolean> {
  const { gate, limits } = deps;
  let next = 0;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!stopped && next < keys.length) {
      const overBytes = counts.bytesSent + counts.bytesReceived >= limits.bytesPerExchangeMax;
      if (overBytes || !gate.tryAcquire(1, 'anti-entropy')) {
        stopped = true;
        return;
      }
      const key = keys[next++]!;
      try {
        await repairKey(key, deps, counts);
      } catch (error) {
        if (isKeyFailure(error)) {
          counts.keysFailed++;
          counts.keyFailure ??= { key, error };
          continue;
        }
        stopped = true;
        failure ??= { error };
      }
    }
  };
  const workerCount = Math.max(1, Math.min(limits.repairConcurrency, keys.length));
  await Promise.all(Array.from({ length: workerCount }, worker));
  if (failure !== undefined) throw failure.error;
  return !stopped;
}

/** Pull the peer's state and merge it here, then push the merged state if the peer's differs. */
async function repairKey(key: string, deps: ExchangeDeps, counts: Counts): Promise<void> {
  const { store, client, limits } = deps;
  const bytes = await client.read(key, limits.timeoutMs);
  counts.bytesReceived += bytes?.length ?? 0;
  const theirs = bytes === undefined ? undefined : decodePeerState(bytes);
  const before = await store.read(key);
  const ours = theirs === undefined ? before : await store.merge(key, theirs);
  if (ours !== undefined && !sameOrAbsent(before, ours)) counts.keysPulled++;
  if (ours === undefined || !needsPush(ours, theirs)) return;
  const encoded = encodeState(ours);
  await client.replicate(key, encoded, limits.timeoutMs);
  counts.keysPushed++;
  counts.bytesSent += encoded.length;
}

/**
 * The peer needs our state unless it already has the same one. A tombstone is never sent to a
 * peer that holds nothing for the key: nothing there needs deleting, and a collected tombstone
 * must not come back.
 */
function needsPush(ours: KeyState, theirs: KeyState | undefined): boolean {
  if (theirs === undefined) return !isTombstone(ours) && ours.siblings.length > 0;
  return !sameState(ours, theirs);
}

function sameOrAbsent(before: KeyState | undefined, after: KeyState): boolean {
  return before !== undefined && sameState(before, after);
}
