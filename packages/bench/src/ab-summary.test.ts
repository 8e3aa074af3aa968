import { describe, expect, it } from 'vitest';
import { type AbSample, median, summarizeAb } from './ab-summary.js';

const sample = (round: number, side: 'this' | 'other', n0: number, ops = 1000, pair = 0): AbSample => ({
  workload: 'W',
  side,
  pair,
  round,
  opsPerSec: ops,
  n0UsPerOp: n0,
  replicasUsPerOp: n0 / 2,
});

describe('bench ab summary', () => {
  it('pairs each round and takes the median of the ratios, which drift cancels out of', () => {
    // The machine slows by half from round to round; this side always costs 10% less than the other.
    const samples = [0, 1, 2, 3, 4].flatMap((round) => {
      const speed = 1 + round * 0.5;
      return [sample(round, 'this', 90 * speed), sample(round, 'other', 100 * speed)];
    });
    const [w] = summarizeAb(samples);
    expect(w!.rounds).toBe(5);
    expect(w!.n0UsPerOp.ratioMedian).toBeCloseTo(0.9, 10);
    expect(w!.n0UsPerOp.ratioMin).toBeCloseTo(0.9, 10);
    expect(w!.n0UsPerOp.thisLower).toBe(5);
    expect(w!.n0UsPerOp.thisMedian).toBeCloseTo(180, 10);
    expect(w!.n0UsPerOp.otherMedian).toBeCloseTo(200, 10);
    expect(w!.opsPerSec.ratioMedian).toBe(1);
    expect(w!.opsPerSec.thisLower).toBe(0);
  });

  it('counts only rounds with both sides, per workload in the order first seen', () => {
    const samples = [
      sample(0, 'this', 10),
      sample(0, 'other', 20),
      sample(1, 'this', 10),
      { ...sample(0, 'this', 5), workload: 'C' },
      { ...sample(0, 'other', 4), workload: 'C' },
    ];
    const [w, c] = summarizeAb(samples);
    expect([w!.workload, w!.rounds, w!.n0UsPerOp.ratioMedian]).toEqual(['W', 1, 0.5]);
    expect([c!.workload, c!.rounds, c!.n0UsPerOp.ratioMedian, c!.n0UsPerOp.thisLower]).toEqual([
      'C',
      1,
      1.25,
      0,
    ]);
  });

  it('gives each pair of clusters its own median ratio, so a pair that favours one side shows apart', () => {
    // Pair 0: this side's cluster happens to run 10% faster; pair 1: the other's does. The code is the same.
    const samples = [0, 1, 2, 3, 4, 5].flatMap((round) => {
      const pair = round < 3 ? 0 : 1;
      const mine = pair === 0 ? 1100 : 1000;
      const theirs = pair === 0 ? 1000 : 1100;
      return [sample(round, 'this', 100, mine, pair), sample(round, 'other', 100, theirs, pair)];
    });
    const [w] = summarizeAb(samples);
    expect(w!.byPair.map((p) => [p.pair, p.rounds, p.opsPerSec])).toEqual([
      [0, 3, 1.1],
      [1, 3, 1000 / 1100],
    ]);
    expect(w!.opsPerSec.thisLower).toBe(3);
  });

  it('median of odd and even counts, NaN of none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
