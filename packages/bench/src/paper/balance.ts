/**
 * The load-balancing simulation of the paper's Figure 8 (6.2): a stream of requests over keys of
 * skewed popularity, each request served by the N nodes of its key's preference list; the
 * load-balancing efficiency is the mean load of a node over the load of the hottest node.
 * Pure and deterministic: keys are hashed with core's key hash, the stream comes from a seeded rng.
 */

import type { Rng } from '@tessera/core';
import { keyPosition } from '@tessera/core';
import { createKeyChooser } from '../keys.js';
import type { Placement } from './placement.js';

export interface RequestStream {
  /** Ring position of each key (core's keyPosition of `key-<i>`). */
  readonly positions: Float64Array;
  /** Requests per key; key 0 is the most popular. */
  readonly requests: Uint32Array;
  readonly requestCount: number;
}

/** Key popularity: zipfian with this theta in (0, 1), or uniform. */
export type Popularity = { readonly kind: 'zipfian'; readonly theta: number } | { readonly kind: 'uniform' };

export function keyName(i: number): string {
  return `key-${i}`;
}

export function requestStream(
  keyCount: number,
  requestCount: number,
  popularity: Popularity,
  rng: Rng,
): RequestStream {
  const positions = new Float64Array(keyCount);
  for (let i = 0; i < keyCount; i++) positions[i] = keyPosition(keyName(i));
  const chooser =
    popularity.kind === 'uniform'
      ? createKeyChooser('uniform', keyCount, rng)
      : createKeyChooser('zipfian', keyCount, rng, popularity.theta);
  const requests = new Uint32Array(keyCount);
  for (let r = 0; r < requestCount; r++) requests[chooser.next()]! += 1;
  return { positions, requests, requestCount };
}

/** Requests served by each node: every request counts once at each of its key's N replicas. */
export function nodeLoads(placement: Placement, stream: RequestStream): Float64Array {
  const perSegment = new Float64Array(placement.replicas.length);
  for (let k = 0; k < stream.positions.length; k++) {
    const count = stream.requests[k]!;
    if (count > 0) perSegment[placement.segmentOf(stream.positions[k]!)]! += count;
  }
  const loads = new Float64Array(placement.nodeCount);
  perSegment.forEach((count, segment) => {
    for (const node of placement.replicas[segment]!) loads[node]! += count;
  });
  return loads;
}

/** Mean load over the hottest node's load: 1 is perfect balance. NaN when nothing was served. */
export function efficiency(loads: ArrayLike<number>): number {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < loads.length; i++) {
    sum += loads[i]!;
    max = Math.max(max, loads[i]!);
  }
  return max === 0 ? Number.NaN : sum / loads.length / max;
}

/** The most popular key's share of all requests. */
export function hottestShare(stream: RequestStream): number {
  return stream.requestCount === 0 ? 0 : stream.requests[0]! / stream.requestCount;
}
