import { createRng } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { makeValue, putBody } from './values.js';
import { chooseOp, needsLoadedKeys, OP_KINDS, type OpKind, WORKLOADS } from './workloads.js';

const DRAWS = 100_000;

function mixOf(name: keyof typeof WORKLOADS): Record<OpKind, number> {
  const rng = createRng(11);
  const counts: Record<OpKind, number> = { read: 0, rmw: 0, insert: 0 };
  for (let i = 0; i < DRAWS; i++) counts[chooseOp(WORKLOADS[name], rng())]++;
  return counts;
}

describe('workload mixes', () => {
  for (const name of ['A', 'B', 'C', 'W'] as const) {
    it(`workload ${name} issues each operation in its share`, () => {
      const counts = mixOf(name);
      for (const kind of OP_KINDS) {
        expect(Math.abs(counts[kind] / DRAWS - WORKLOADS[name].mix[kind])).toBeLessThan(0.01);
      }
    });
  }

  it('shares add up to one', () => {
    for (const w of Object.values(WORKLOADS)) {
      expect(OP_KINDS.reduce((sum, k) => sum + w.mix[k], 0)).toBeCloseTo(1, 12);
    }
  });

  it('never picks a kind without a share, even at the edge', () => {
    expect(chooseOp(WORKLOADS.C, 0.999_999_999)).toBe('read');
    expect(chooseOp(WORKLOADS.W, 0)).toBe('insert');
    expect(chooseOp(WORKLOADS.A, 0.4999)).toBe('read');
    expect(chooseOp(WORKLOADS.A, 0.5)).toBe('rmw');
  });

  it('read workloads need the load phase, W does not', () => {
    expect(needsLoadedKeys(WORKLOADS.A)).toBe(true);
    expect(needsLoadedKeys(WORKLOADS.C)).toBe(true);
    expect(needsLoadedKeys(WORKLOADS.W)).toBe(false);
  });
});

describe('values', () => {
  it('serializes to exactly the requested size', () => {
    for (const size of [2, 3, 150, 4096]) {
      const value = makeValue(size, createRng(1));
      expect(Buffer.byteLength(value)).toBe(size);
      expect(typeof JSON.parse(value)).toBe('string');
    }
  });

  it('builds PUT bodies with and without a context', () => {
    expect(JSON.parse(putBody('"v"'))).toEqual({ value: 'v' });
    expect(JSON.parse(putBody('"v"', 'c1.x"y'))).toEqual({ value: 'v', context: 'c1.x"y' });
  });
});
