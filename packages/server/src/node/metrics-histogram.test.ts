import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BucketHistogram } from './metrics-histogram.js';

const BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const OPS = ['get', 'put', 'delete'] as const;

const observation = fc.record({
  op: fc.constantFrom(...OPS),
  // Bucket bounds themselves, values between them, above the last, and zero.
  value: fc.oneof(fc.constantFrom(0, ...BUCKETS, 7.5), fc.double({ min: 0, max: 10, noNaN: true })),
});

function both() {
  const expected = new Registry();
  const actual = new Registry();
  const config = {
    name: 'tessera_x_seconds',
    help: 'A latency.',
    labelNames: ['op'] as const,
    buckets: BUCKETS,
  };
  const reference = new Histogram({ ...config, registers: [expected] });
  const fast = new BucketHistogram({ ...config, registers: [actual] });
  return { expected, actual, reference, fast };
}

describe('BucketHistogram', () => {
  it('scrapes exactly as a prom-client histogram given the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 200 }), async (observations) => {
        const { expected, actual, reference, fast } = both();
        for (const { op, value } of observations) {
          reference.observe({ op }, value);
          fast.child({ op }).observe(value);
        }
        expect(await actual.metrics()).toBe(await expected.metrics());
        expect(await actual.getMetricsAsJSON()).toEqual(await expected.getMetricsAsJSON());
      }),
    );
  });

  it('keeps one series per label set, however often its child is looked up', async () => {
    const { actual, fast } = both();
    fast.child({ op: 'get' }).observe(0.003);
    fast.child({ op: 'get' }).observe(0.004);
    const text = await actual.metrics();
    expect(text).toContain('tessera_x_seconds_count{op="get"} 2');
    expect(text.match(/_count/g)).toHaveLength(1);
  });

  it('refuses prom-client’s own recording methods, whose observations a scrape would not show', () => {
    const { fast } = both();
    expect(() => fast.observe({ op: 'get' }, 1)).toThrow(/child\(labels\)\.observe/);
    expect(() => fast.labels()).toThrow(/child/);
  });

  it('resets to zero counts and keeps its series', async () => {
    const { actual, fast } = both();
    fast.child({ op: 'put' }).observe(0.2);
    fast.reset();
    expect(await actual.metrics()).toContain('tessera_x_seconds_count{op="put"} 0');
  });

  it('refuses buckets that do not ascend', () => {
    expect(() => new BucketHistogram({ name: 'y', help: 'y', buckets: [1, 1], registers: [] })).toThrow(
      /ascend/,
    );
  });
});
