import { createRng } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { createKeyChooser, ZipfianChooser, zeta } from './keys.js';

const DRAWS = 200_000;

function histogram(next: () => number, count: number): number[] {
  const counts = new Array<number>(count).fill(0);
  for (let i = 0; i < DRAWS; i++) {
    const k = next();
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

describe('zipfian key choice', () => {
  const count = 1_000;
  const chooser = new ZipfianChooser(count, 0.99, createRng(42));
  const counts = histogram(() => chooser.next(), count);

  it('stays in range', () => {
    const c = new ZipfianChooser(10, 0.99, createRng(1));
    for (let i = 0; i < 10_000; i++) {
      const k = c.next();
      expect(Number.isInteger(k) && k >= 0 && k < 10).toBe(true);
    }
  });

  it('gives the two hottest ranks their exact zipfian share', () => {
    for (const rank of [0, 1]) {
      const expected = chooser.probability(rank);
      expect(Math.abs(counts[rank]! / DRAWS - expected)).toBeLessThan(expected * 0.05);
    }
    // Rank 0 is about twice as hot as rank 1 (2^0.99).
    expect(counts[0]! / counts[1]!).toBeGreaterThan(1.8);
    expect(counts[0]! / counts[1]!).toBeLessThan(2.2);
  });

  it('is skewed like zipf: the hottest 10% of keys get their share (about 2/3), yet the tail is reached', () => {
    // Beyond rank 1 the generator (Gray et al.) is a continuous approximation: check mass, not ranks.
    const head = counts.slice(0, count / 10).reduce((a, b) => a + b, 0);
    const expected = zeta(count / 10, 0.99) / zeta(count, 0.99);
    expect(Math.abs(head / DRAWS - expected)).toBeLessThan(0.03);
    expect(counts.slice(count / 2).some((n) => n > 0)).toBe(true);
  });

  it('computes zeta as the generalized harmonic number', () => {
    expect(zeta(1, 0.99)).toBe(1);
    expect(zeta(2, 0.5)).toBeCloseTo(1 + 1 / Math.SQRT2, 12);
  });

  it('replays the same sequence for the same seed', () => {
    const a = createKeyChooser('zipfian', 500, createRng(7));
    const b = createKeyChooser('zipfian', 500, createRng(7));
    const seq = (c: typeof a): number[] => Array.from({ length: 50 }, () => c.next());
    expect(seq(a)).toEqual(seq(b));
  });
});

describe('uniform key choice', () => {
  it('spreads draws evenly', () => {
    const count = 100;
    const chooser = createKeyChooser('uniform', count, createRng(3));
    const counts = histogram(() => chooser.next(), count);
    const expected = DRAWS / count;
    for (const n of counts) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.15);
  });

  it('rejects an empty key space', () => {
    expect(() => createKeyChooser('uniform', 0, createRng(1))).toThrow(RangeError);
  });
});
