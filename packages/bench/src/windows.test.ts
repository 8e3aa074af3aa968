import { describe, expect, it } from 'vitest';
import { LatencyWindows, WINDOWS_MAX } from './windows.js';

describe('latency windows', () => {
  it('puts each operation in the window it started in, with exact nearest-rank percentiles', () => {
    const w = new LatencyWindows(1_000);
    for (let i = 1; i <= 1_000; i++) w.record(10, i * 1_000);
    w.record(2_500, 7_000);
    const [first, second, third] = w.summarize();
    expect(first).toMatchObject({
      startS: 0,
      count: 1_000,
      p50Ms: 500,
      p99Ms: 990,
      p999Ms: 999,
      maxMs: 1_000,
    });
    expect(first!.meanMs).toBeCloseTo(500.5);
    expect(second!.count).toBe(0);
    expect(Number.isNaN(second!.p999Ms)).toBe(true);
    expect(third).toMatchObject({ startS: 2, count: 1, p999Ms: 7, maxMs: 7 });
  });

  it('ignores operations outside the bounded range of windows', () => {
    const w = new LatencyWindows(1_000);
    w.record(-5, 1_000);
    w.record(WINDOWS_MAX * 1_000, 1_000);
    expect(w.summarize()).toEqual([]);
  });
});
