/**
 * Merkle trees for anti-entropy (paper 4.7), one per partition, in the "tictac" form: a fixed
 * shape of MERKLE_BUCKETS leaves under MERKLE_FANOUT-way inner nodes, where every node is the XOR
 * of 64-bit hashes of the (key, state digest) pairs below it. XOR makes a write an O(depth)
 * update with no rebuild: `leaf ^= h(key, oldDigest) ^ h(key, newDigest)`, and a key deleted and
 * re-added cancels out exactly. Two replicas compare roots, then the children of differing nodes,
 * down to the leaves (buckets), then the (key, digest) lists of differing buckets.
 *
 * Only live states (at least one sibling) are in the tree: a tombstone contributes nothing, so a
 * replica holding a tombstone, one holding an older tombstone, and one holding nothing look the
 * same, while a replica still holding a value that a tombstone deleted differs. Collecting a
 * tombstone therefore never changes a tree, and never makes a peer push it back.
 */
import { TesseraError } from './errors.js';
import { hex32, murmur3Text, murmur3TextPair, RING_POSITION_SEED } from './hash.js';
import { partitionAt } from './ring.js';
import type { KeyState } from './versions.js';

/** Leaves (buckets) per tree. */
export const MERKLE_BUCKETS = 1024;
/** Children per inner node. */
export const MERKLE_FANOUT = 32;
/** Levels: 0 is the root, MERKLE_LEAF_LEVEL the buckets. */
export const MERKLE_LEAF_LEVEL = 2;
/** Bytes of one node hash on the wire. */
export const MERKLE_HASH_BYTES = 8;

const BUCKET_SEED = 0x2f0b3c1d;
const PAIR_SEED_HI = 0x6a09e667;
const PAIR_SEED_LO = 0xbb67ae85;
const DIGEST_SEED_HI = 0x3c6ef372;
const DIGEST_SEED_LO = 0xa54ff53a;
const FANOUT_BITS = 5;

/**
 * 16 lowercase hex characters: a 64-bit hash of the state's vector (node, counter pairs) and its
 * siblings' dots, in stored order. Equal exactly when `sameState` is true (up to a 2^-64 chance
 * of collision); timestamps, values and `deletedAtMs` are not part of it.
 */
export type StateDigest = string;

export const STATE_DIGEST_PATTERN = /^[0-9a-f]{16}$/;

/** Nodes at `level`: 1, 32, 1024. */
export function levelWidth(level: number): number {
  return MERKLE_FANOUT ** level;
}

/** The bucket (leaf) of a key: a seeded MurmurHash3 of its UTF-8, so unrelated to its partition. */
export function bucketOf(key: string): number {
  return murmur3Text(key, BUCKET_SEED) % MERKLE_BUCKETS;
}

/**
 * A key's partition, Merkle bucket and ring position, `[partitionOf(partitionCount, key),
 * bucketOf(key), keyPosition(key)]`, from one pass over its UTF-8: a replica places every key it stores.
 */
export function placeOf(partitionCount: number, key: string): readonly [number, number, number] {
  const [position, bucketHash] = murmur3TextPair(key, RING_POSITION_SEED, BUCKET_SEED);
  return [partitionAt(partitionCount, position), bucketHash % MERKLE_BUCKETS, position];
}

export function stateDigest(state: KeyState): StateDigest {
  const parts: string[] = [`${state.vv.length}v`];
  for (const e of state.vv) parts.push(`${e.node.length}:${e.node}${e.counter};`);
  parts.push(`${state.siblings.length}s`);
  for (const s of state.siblings) parts.push(`${s.dot.node.length}:${s.dot.node}${s.dot.counter};`);
  const [hi, lo] = murmur3TextPair(parts.join(''), DIGEST_SEED_HI, DIGEST_SEED_LO);
  return hex32(hi) + hex32(lo);
}

/** What a key contributes to its tree: its digest when live, nothing for a tombstone or no state. */
export function treeDigest(state: KeyState | undefined): StateDigest | undefined {
  return state === undefined || state.siblings.length === 0 ? undefined : stateDigest(state);
}

/** Bytes one tree holds: 1 + 32 + 1024 nodes of 8 bytes, 8,456 in all (Q = 64: 541 KiB). */
export const MERKLE_TREE_BYTES = (1 + MERKLE_FANOUT + MERKLE_BUCKETS) * MERKLE_HASH_BYTES;

/** One tree: per level, two 32-bit words (high, low) per node. */
export class MerkleTree {
  private readonly levels: Uint32Array[];

  constructor() {
    this.levels = [];
    for (let level = 0; level <= MERKLE_LEAF_LEVEL; level++) {
      this.levels.push(new Uint32Array(levelWidth(level) * 2));
    }
  }

  /** Replaces `key`'s contribution: XORs out h(key, before), XORs in h(key, after). */
  update(
    key: string,
    before: StateDigest | undefined,
    after: StateDigest | undefined,
    bucket = bucketOf(key),
  ): void {
    if (before === after) return;
    let hi = 0;
    let lo = 0;
    if (before !== undefined) [hi, lo] = xorPair(hi, lo, key, before);
    if (after !== undefined) [hi, lo] = xorPair(hi, lo, key, after);
    let index = bucket;
    for (let level = MERKLE_LEAF_LEVEL; level >= 0; level--) {
      const words = this.levels[level]!;
      words[index * 2] = (words[index * 2]! ^ hi) >>> 0;
      words[index * 2 + 1] = (words[index * 2 + 1]! ^ lo) >>> 0;
      index >>>= FANOUT_BITS;
    }
  }

  /** The hashes of the nodes `indices` of `level`, MERKLE_HASH_BYTES each, big-endian, in order. */
  hashes(level: number, indices: readonly number[]): Uint8Array {
    checkLevel(level);
    const words = this.levels[level]!;
    const width = levelWidth(level);
    const out = new Uint8Array(indices.length * MERKLE_HASH_BYTES);
    const view = new DataView(out.buffer);
    indices.forEach((index, i) => {
      if (!Number.isInteger(index) || index < 0 || index >= width) {
        throw badRequest(`Merkle level ${level} has nodes 0 to ${width - 1}, not ${index}.`);
      }
      view.setUint32(i * MERKLE_HASH_BYTES, words[index * 2]!);
      view.setUint32(i * MERKLE_HASH_BYTES + 4, words[index * 2 + 1]!);
    });
    return out;
  }

  /** True when every node of both trees is equal. */
  equals(other: MerkleTree): boolean {
    return this.levels.every((words, level) => {
      const theirs = other.levels[level]!;
      return words.every((w, i) => w === theirs[i]);
    });
  }
}

/** The positions at which two equally long hash lists (as from `hashes`) differ, as `indices`. */
export function diffHashes(indices: readonly number[], ours: Uint8Array, theirs: Uint8Array): number[] {
  const bytes = indices.length * MERKLE_HASH_BYTES;
  if (ours.length !== bytes || theirs.length !== bytes) {
    throw badRequest(`Expected ${bytes} bytes of hashes for ${indices.length} nodes.`);
  }
  const out: number[] = [];
  indices.forEach((index, i) => {
    for (let b = i * MERKLE_HASH_BYTES; b < (i + 1) * MERKLE_HASH_BYTES; b++) {
      if (ours[b] !== theirs[b]) {
        out.push(index);
        return;
      }
    }
  });
  return out;
}

/** The children, one level down, of nodes `indices` of `level`, in order. */
export function childrenOf(level: number, indices: readonly number[]): number[] {
  checkLevel(level);
  if (level === MERKLE_LEAF_LEVEL) throw badRequest('Merkle buckets have no children.');
  return indices.flatMap((index) =>
    Array.from({ length: MERKLE_FANOUT }, (_, c) => index * MERKLE_FANOUT + c),
  );
}

/** Asks a peer for the hashes of nodes `indices` of `level` of its tree (MERKLE_HASH_BYTES each). */
export type RemoteHashes = (level: number, indices: readonly number[]) => Promise<Uint8Array>;

/**
 * The buckets where `ours` and the remote tree differ, walking top-down (paper 4.7): the root,
 * then the children of differing nodes only, down to the leaves. Empty when the roots are equal.
 */
export async function differingBuckets(ours: MerkleTree, remote: RemoteHashes): Promise<number[]> {
  let differing = [0];
  for (let level = 0; level <= MERKLE_LEAF_LEVEL && differing.length > 0; level++) {
    const indices = level === 0 ? [0] : childrenOf(level - 1, differing);
    differing = diffHashes(indices, ours.hashes(level, indices), await remote(level, indices));
  }
  return differing;
}

/** The keys whose digests differ between two (key -> digest) listings, present on either side, sorted. */
export function diffKeyDigests(
  ours: ReadonlyMap<string, StateDigest>,
  theirs: ReadonlyMap<string, StateDigest>,
): string[] {
  const out: string[] = [];
  for (const [key, digest] of ours) if (theirs.get(key) !== digest) out.push(key);
  for (const key of theirs.keys()) if (!ours.has(key)) out.push(key);
  return out.sort();
}

function xorPair(hi: number, lo: number, key: string, digest: StateDigest): [number, number] {
  const [pairHi, pairLo] = murmur3TextPair(`${key}\u0000${digest}`, PAIR_SEED_HI, PAIR_SEED_LO);
  return [(hi ^ pairHi) >>> 0, (lo ^ pairLo) >>> 0];
}

function checkLevel(level: number): void {
  if (!Number.isInteger(level) || level < 0 || level > MERKLE_LEAF_LEVEL) {
    throw badRequest(`Merkle levels are 0 to ${MERKLE_LEAF_LEVEL}, not ${level}.`);
  }
}

function badRequest(message: string): TesseraError {
  return new TesseraError('BAD_REQUEST', message);
}
