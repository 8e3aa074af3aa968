import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BURST_GAP_MS, BURSTS_SHOWN, groupBursts, LateRequests } from './late-bursts.js';
import { renderLate } from './report.js';
import type { PhaseResult } from './results.js';

describe('late operations and their bursts', () => {
  it('counts only operations slower than the threshold, and groups them by when they started', () => {
    const late = new LateRequests(10);
    // A stall at 2 s: requests that started within it all finished late, in any order.
    for (const [at, ms] of [
      [2_030, 18],
      [2_000, 25],
      [2_010, 22],
      [500, 9.9],
      [7_000, 11],
      [2_060, 12],
    ] as const)
      late.record(at, ms);
    const summary = late.summarize(10_000)!;
    expect(summary).toMatchObject({ thresholdMs: 10, count: 5, share: 5 / 10_000, burstCount: 2 });
    expect(summary.largest).toEqual([
      { atS: 2, spanMs: 60, count: 4, maxMs: 25 },
      { atS: 7, spanMs: 0, count: 1, maxMs: 11 },
    ]);
    expect(new LateRequests().summarize(0)).toBeUndefined();
    expect(() => new LateRequests(0)).toThrow(RangeError);
  });

  it('splits bursts exactly where late starts are BURST_GAP_MS apart or more, and loses none', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(60_000), fc.double({ min: 10.1, max: 500, noNaN: true }))),
        (late) => {
          const bursts = groupBursts(late.flat());
          expect(bursts.reduce((n, b) => n + b.count, 0)).toBe(late.length);
          for (let i = 1; i < bursts.length; i++) {
            const gap = bursts[i]!.atS * 1000 - (bursts[i - 1]!.atS * 1000 + bursts[i - 1]!.spanMs);
            expect(gap).toBeGreaterThanOrEqual(BURST_GAP_MS - 1e-6);
          }
          for (const b of bursts) {
            const inside = late.filter(
              ([at]) => at >= b.atS * 1000 - 1e-6 && at <= b.atS * 1000 + b.spanMs + 1e-6,
            );
            expect(inside.length).toBe(b.count);
            expect(Math.max(...inside.map(([, ms]) => ms))).toBe(b.maxMs);
          }
        },
      ),
    );
  });

  it('names the largest bursts in the report, at most BURSTS_SHOWN', () => {
    const late = new LateRequests();
    for (let burst = 0; burst < 8; burst++)
      for (let i = 0; i <= burst; i++) late.record(burst * 1_000 + i, 20 + burst);
    const phase = { name: 'W', late: late.summarize(100_000)! } as unknown as PhaseResult;
    const quiet = { name: 'C', late: new LateRequests().summarize(100_000)! } as unknown as PhaseResult;
    const [line] = renderLate([phase, quiet]);
    expect(line).toContain(
      'W 36 (0.04%) in 8 bursts, the largest at 7.0 s (8 over 7 ms, max 27.0 ms), 6.0 s (7',
    );
    expect(line).toContain('C none');
    expect(phase.late?.largest).toHaveLength(BURSTS_SHOWN);
  });
});
