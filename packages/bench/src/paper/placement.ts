/**
 * Partitioning strategies of the paper (6.2), as placements for the load-balancing simulation.
 * A placement cuts the 32-bit hash space into segments and names the N nodes that serve each
 * segment (its preference list, first N distinct nodes). Nodes are numbered 0..S-1.
 *
 * - Strategy 1: T random tokens per node; the ranges between consecutive tokens are the segments,
 *   and a range belongs to the token at its end and the next distinct nodes clockwise.
 * - Strategy 3: Q equal partitions, Q/S per node, built with core's ring exactly as a cluster
 *   grows it (createRing, then claim for every joining node).
 */

import type { Rng } from '@tessera/core';
import { claim, createRing, preferenceList, type Ring } from '@tessera/core';

const HASH_SPACE = 2 ** 32;
/** Bytes of one token in the membership data: a 32-bit position and a 16-bit node index. */
export const TOKEN_BYTES = 6;
/** Bytes of one partition's owner: a 16-bit node index (partition bounds are implicit). */
export const PARTITION_OWNER_BYTES = 2;

export interface Placement {
  readonly strategy: 1 | 3;
  /** S: the number of nodes. */
  readonly nodeCount: number;
  /** The segment holding a position of the hash space, in [0, replicas.length). */
  segmentOf(position: number): number;
  /** The N nodes serving each segment, distinct, the owner first. */
  readonly replicas: readonly (readonly number[])[];
  /** What every node keeps to map keys to nodes (tokens or the partition table), in bytes. */
  readonly metadataBytes: number;
}

/** Strategy 1: `tokensPerNode` random tokens for each of `nodeCount` nodes. */
export function strategy1(nodeCount: number, tokensPerNode: number, n: number, rng: Rng): Placement {
  checkShape(nodeCount, n);
  const tokens: { position: number; node: number }[] = [];
  const taken = new Set<number>();
  for (let node = 0; node < nodeCount; node++) {
    for (let t = 0; t < tokensPerNode; t++) {
      let position = Math.floor(rng() * HASH_SPACE);
      while (taken.has(position)) position = Math.floor(rng() * HASH_SPACE);
      taken.add(position);
      tokens.push({ position, node });
    }
  }
  tokens.sort((a, b) => a.position - b.position);
  const positions = Float64Array.from(tokens, (t) => t.position);
  const owners = tokens.map((t) => t.node);
  const replicas = owners.map((_, i) => firstDistinct(owners, i, n));
  return {
    strategy: 1,
    nodeCount,
    // The range (previous token, token] belongs to the token; past the last token it wraps to the first.
    segmentOf: (position) => {
      const i = firstAtOrAbove(positions, position);
      return i === positions.length ? 0 : i;
    },
    replicas,
    metadataBytes: tokens.length * TOKEN_BYTES,
  };
}

/** Strategy 3: `partitionCount` equal partitions over `nodeCount` nodes, as core's ring assigns them. */
export function strategy3(nodeCount: number, partitionCount: number, n: number): Placement {
  checkShape(nodeCount, n);
  const ring = growRing(nodeCount, partitionCount, n);
  const index = new Map(Array.from({ length: nodeCount }, (_, i) => [nodeName(i), i]));
  const replicas = Array.from({ length: partitionCount }, (_, p) =>
    preferenceList(ring, p)
      .slice(0, n)
      .map((id) => index.get(id)!),
  );
  return {
    strategy: 3,
    nodeCount,
    segmentOf: (position) => Math.floor((position * partitionCount) / HASH_SPACE),
    replicas,
    metadataBytes: partitionCount * PARTITION_OWNER_BYTES,
  };
}

/** The ring a cluster of `nodeCount` nodes ends with when they join one after another. */
export function growRing(nodeCount: number, partitionCount: number, n: number): Ring {
  let ring = createRing(partitionCount, nodeName(0));
  for (let i = 1; i < nodeCount; i++) ring = claim(ring, nodeName(i), n);
  return ring;
}

function nodeName(i: number): string {
  return `n${String(i).padStart(3, '0')}`;
}

function checkShape(nodeCount: number, n: number): void {
  if (!Number.isInteger(nodeCount) || nodeCount < 1) throw new RangeError(`node count must be >= 1`);
  if (!Number.isInteger(n) || n < 1 || n > nodeCount) throw new RangeError(`N must be in 1..${nodeCount}`);
}

/** The first `n` distinct owners walking clockwise from index `start`. */
function firstDistinct(owners: readonly number[], start: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < owners.length && out.length < n; i++) {
    const owner = owners[(start + i) % owners.length]!;
    if (!out.includes(owner)) out.push(owner);
  }
  return out;
}

/** The index of the first sorted value >= x, or values.length if there is none. */
function firstAtOrAbove(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
