/** The event-loop delay metrics: one timer feeds the histogram and the longest-delay gauge. */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  LOOP_SAMPLE_EVERY_MS,
  LOOP_SAMPLE_IDLE_EVERY_MS,
  nextSampleEveryMs,
  registerEventLoopDelay,
} from './metrics-loop.js';

type Sample = { value: number; labels: { le?: string | number }; metricName?: string };

/** One scrape (every scrape restarts the longest-delay gauge): the histogram's buckets and the gauge. */
async function scrape(registry: Registry): Promise<{ bucket(le: string): number; max: number }> {
  const metrics = await registry.getMetricsAsJSON();
  const values = (name: string) => (metrics.find((m) => m.name === name)?.values ?? []) as Sample[];
  const histogram = values('tessera_event_loop_delay_seconds');
  return {
    bucket: (le) => histogram.find((v) => String(v.labels.le) === le)?.value ?? Number.NaN,
    max: values('tessera_event_loop_delay_max_seconds')[0]?.value ?? Number.NaN,
  };
}

/** Keeps the event loop busy for `ms` (a stall, as a long synchronous task would cause). */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

describe('event-loop delay metrics', () => {
  it('records a stall in the histogram and as the longest delay, which the next scrape resets', async () => {
    const registry = new Registry();
    registerEventLoopDelay(registry);
    const before = await scrape(registry);
    // Longer than the sampler's longest period (LOOP_SAMPLE_IDLE_EVERY_MS), so it was due during the
    // stall however idle the loop was before: it fires at least 100 ms late, above the 0.05 bucket.
    stall(LOOP_SAMPLE_IDLE_EVERY_MS + 100);
    let after = await scrape(registry);
    const deadline = Date.now() + 5_000;
    while (after.bucket('+Inf') === before.bucket('+Inf') && Date.now() < deadline) {
      // Not yet: the timer was due during the stall and fires at the next turn of the loop.
      await new Promise((resolve) => setTimeout(resolve, 5));
      after = await scrape(registry);
    }
    const slow = (s: { bucket(le: string): number }) => s.bucket('+Inf') - s.bucket('0.05');
    expect(slow(after)).toBeGreaterThan(slow(before));
    expect(after.max).toBeGreaterThan(0.05);
    expect((await scrape(registry)).max).toBeLessThan(0.05);
  });

  it('looks every 10 ms while the loop is in use and backs off to 100 ms while it is idle', () => {
    expect(nextSampleEveryMs(LOOP_SAMPLE_EVERY_MS, 0.5)).toBe(LOOP_SAMPLE_EVERY_MS);
    expect(nextSampleEveryMs(LOOP_SAMPLE_IDLE_EVERY_MS, 0.06)).toBe(LOOP_SAMPLE_EVERY_MS);
    let everyMs = LOOP_SAMPLE_EVERY_MS;
    const periods: number[] = [];
    for (let i = 0; i < 6; i++) {
      everyMs = nextSampleEveryMs(everyMs, 0.01);
      periods.push(everyMs);
    }
    expect(periods).toEqual([20, 40, 80, 100, 100, 100]);
  });
});
