/**
 * Reading a node's /metrics (Prometheus text format): a gauge's value, a histogram's cumulative
 * buckets, the difference of two scrapes of a histogram, and a quantile from buckets the way
 * Prometheus's histogram_quantile computes it (linear within the bucket).
 */

/** Cumulative bucket counts of one histogram (no labels other than `le`), ascending bounds, `+Inf` last. */
export interface Buckets {
  readonly upperBounds: readonly number[];
  readonly cumulative: readonly number[];
}

/** The event-loop delay histogram every node exports (packages/server/src/node/metrics-loop.ts). */
export const LOOP_DELAY_FAMILY = 'tessera_event_loop_delay_seconds';
export const HEAP_USED_GAUGE = 'tessera_nodejs_heap_size_used_bytes';

/** The value of an unlabelled gauge or counter; undefined when absent. */
export function parseGauge(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name}(?:\\{\\})? (\\S+)`, 'm').exec(text);
  if (match === null) return undefined;
  const value = Number(match[1]);
  return Number.isFinite(value) ? value : undefined;
}

/** The buckets of an unlabelled histogram; undefined when absent. */
export function parseHistogram(text: string, family: string): Buckets | undefined {
  const pattern = new RegExp(`^${family}_bucket\\{le="([^"]+)"\\} (\\S+)`, 'gm');
  const pairs: [number, number][] = [];
  for (const [, le, count] of text.matchAll(pattern)) {
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    const value = Number(count);
    if (Number.isNaN(bound) || !Number.isFinite(value)) return undefined;
    pairs.push([bound, value]);
  }
  if (pairs.length === 0) return undefined;
  pairs.sort((a, b) => a[0] - b[0]);
  return { upperBounds: pairs.map((p) => p[0]), cumulative: pairs.map((p) => p[1]) };
}

/**
 * What was recorded between two scrapes; undefined when they do not match (other buckets, or a
 * count went down: the process restarted in between).
 */
export function bucketsDelta(before: Buckets, after: Buckets): Buckets | undefined {
  const n = after.upperBounds.length;
  if (before.upperBounds.length !== n) return undefined;
  const cumulative: number[] = [];
  for (let i = 0; i < n; i++) {
    if (before.upperBounds[i] !== after.upperBounds[i]) return undefined;
    const d = after.cumulative[i]! - before.cumulative[i]!;
    if (d < 0) return undefined;
    cumulative.push(d);
  }
  return { upperBounds: after.upperBounds, cumulative };
}

/** Observations in the buckets (the `+Inf` bucket's count). */
export function bucketsCount(b: Buckets): number {
  return b.cumulative.at(-1) ?? 0;
}

/**
 * The q-quantile (0 < q < 1), as histogram_quantile: linear within the bucket it falls in, the
 * first bucket starting at 0; in the `+Inf` bucket, the highest finite bound. NaN with no observations.
 */
export function bucketQuantile(b: Buckets, q: number): number {
  const total = bucketsCount(b);
  if (!(total > 0)) return Number.NaN;
  const rank = q * total;
  for (let i = 0; i < b.cumulative.length; i++) {
    const count = b.cumulative[i]!;
    if (count < rank) continue;
    const upper = b.upperBounds[i]!;
    if (upper === Number.POSITIVE_INFINITY) return b.upperBounds[i - 1] ?? Number.NaN;
    const lower = i === 0 ? 0 : b.upperBounds[i - 1]!;
    const below = i === 0 ? 0 : b.cumulative[i - 1]!;
    const inBucket = count - below;
    return inBucket === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
  }
  return b.upperBounds.at(-2) ?? Number.NaN;
}
