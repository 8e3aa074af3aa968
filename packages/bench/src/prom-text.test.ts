import { describe, expect, it } from 'vitest';
import { loopDelayStats } from './loop-probe.js';
import { bucketQuantile, bucketsDelta, LOOP_DELAY_FAMILY, parseGauge, parseHistogram } from './prom-text.js';

/** A scrape as a node writes it (prom-client's text format), with the given cumulative counts. */
function scrape(counts: readonly [string, number][], heapBytes = 1234): string {
  return [
    `# HELP ${LOOP_DELAY_FAMILY} How late a timer fired.`,
    `# TYPE ${LOOP_DELAY_FAMILY} histogram`,
    ...counts.map(([le, n]) => `${LOOP_DELAY_FAMILY}_bucket{le="${le}"} ${n}`),
    `${LOOP_DELAY_FAMILY}_sum 0.5`,
    `${LOOP_DELAY_FAMILY}_count ${counts.at(-1)?.[1] ?? 0}`,
    '# TYPE tessera_nodejs_heap_size_used_bytes gauge',
    `tessera_nodejs_heap_size_used_bytes ${heapBytes}`,
  ].join('\n');
}

describe('event-loop delay from two scrapes of the histogram', () => {
  it('parses buckets and gauges, and takes quantiles of the difference as histogram_quantile does', () => {
    const before = parseHistogram(
      scrape([
        ['0.001', 500],
        ['0.01', 500],
        ['0.1', 500],
        ['+Inf', 500],
      ]),
      LOOP_DELAY_FAMILY,
    )!;
    // Between the scrapes: 900 delays under 1 ms, 99 from 1 to 10 ms, 1 from 10 to 100 ms.
    const after = parseHistogram(
      scrape([
        ['0.001', 1400],
        ['0.01', 1499],
        ['0.1', 1500],
        ['+Inf', 1500],
      ]),
      LOOP_DELAY_FAMILY,
    )!;
    const delta = bucketsDelta(before, after)!;
    expect(delta.cumulative).toEqual([900, 999, 1000, 1000]);
    expect(bucketQuantile(delta, 0.5)).toBeCloseTo(0.001 * (500 / 900));
    expect(bucketQuantile(delta, 0.99)).toBeCloseTo(0.001 + 0.009 * (90 / 99));
    // Rank 999 is the last of the 1-10 ms bucket; the single slow one is above it.
    expect(bucketQuantile(delta, 0.999)).toBeCloseTo(0.01);
    expect(bucketQuantile(delta, 0.9999)).toBeCloseTo(0.01 + 0.09 * 0.9);
    const stats = loopDelayStats(before, after)!;
    expect(stats.samples).toBe(1000);
    expect(stats.p999Ms).toBeCloseTo(10);
    expect(parseGauge(scrape([['+Inf', 1]], 5e7), 'tessera_nodejs_heap_size_used_bytes')).toBe(5e7);
  });

  it('answers the highest finite bound beyond the last bucket, and nothing for a restart or no samples', () => {
    const zero = parseHistogram(
      scrape([
        ['0.5', 0],
        ['1', 0],
        ['+Inf', 0],
      ]),
      LOOP_DELAY_FAMILY,
    )!;
    const slow = parseHistogram(
      scrape([
        ['0.5', 0],
        ['1', 0],
        ['+Inf', 10],
      ]),
      LOOP_DELAY_FAMILY,
    )!;
    expect(bucketQuantile(bucketsDelta(zero, slow)!, 0.999)).toBe(1);
    expect(bucketsDelta(slow, zero)).toBeUndefined();
    expect(loopDelayStats(zero, zero)).toBeUndefined();
    expect(Number.isNaN(bucketQuantile(zero, 0.5))).toBe(true);
    expect(parseHistogram('tessera_other_bucket{le="1"} 3', LOOP_DELAY_FAMILY)).toBeUndefined();
  });
});
