import { createRng, keyPosition, partitionOf } from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { efficiency, keyName, nodeLoads, requestStream } from './balance.js';
import { FIG8_QUICK, runFig8 } from './fig8.js';
import { growRing, strategy1, strategy3 } from './placement.js';

const shapeArb = fc
  .record({ nodes: fc.integer({ min: 1, max: 12 }), n: fc.integer({ min: 1, max: 3 }) })
  .map(({ nodes, n }) => ({ nodes, n: Math.min(n, nodes) }));

describe('placements of the Figure 8 simulation', () => {
  it('strategy 1: every position has one owner, the node of the first token at or after it, and N distinct replicas', () => {
    fc.assert(
      fc.property(
        shapeArb,
        fc.integer({ min: 1, max: 8 }),
        fc.nat(),
        fc.array(fc.nat({ max: 2 ** 32 - 1 }), { minLength: 1, maxLength: 20 }),
        ({ nodes, n }, t, seed, positions) => {
          const placement = strategy1(nodes, t, n, createRng(seed));
          expect(placement.replicas).toHaveLength(nodes * t);
          expect(placement.metadataBytes).toBe(nodes * t * 6);
          for (const position of positions) {
            const segment = placement.segmentOf(position);
            expect(segment >= 0 && segment < placement.replicas.length).toBe(true);
            const replicas = placement.replicas[segment]!;
            expect(new Set(replicas).size).toBe(n);
            for (const node of replicas) expect(node >= 0 && node < nodes).toBe(true);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("strategy 3: a key's segment is core's partition and its owner is the ring's owner", () => {
    fc.assert(
      fc.property(
        shapeArb,
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.string(), { minLength: 1, maxLength: 20 }),
        ({ nodes, n }, perNode, keys) => {
          const q = nodes * perNode;
          const placement = strategy3(nodes, q, n);
          const ring = growRing(nodes, q, n);
          expect(placement.metadataBytes).toBe(q * 2);
          for (const key of keys) {
            const p = placement.segmentOf(keyPosition(key));
            expect(p).toBe(partitionOf(q, key));
            const replicas = placement.replicas[p]!;
            expect(`n${String(replicas[0]).padStart(3, '0')}`).toBe(ring.owners[p]);
            expect(new Set(replicas).size).toBe(n);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('load and efficiency', () => {
  const stream = requestStream(20_000, 100_000, { kind: 'uniform' }, createRng(3));

  it('counts every request once at each of its N replicas; efficiency is in (0, 1]', () => {
    fc.assert(
      fc.property(shapeArb, fc.integer({ min: 1, max: 16 }), fc.nat(), ({ nodes, n }, t, seed) => {
        const loads = nodeLoads(strategy1(nodes, t, n, createRng(seed)), stream);
        expect(loads.reduce((a, b) => a + b, 0)).toBe(n * stream.requestCount);
        const e = efficiency(loads);
        expect(e > 0 && e <= 1).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('strategy 3 is near perfect balance with uniform keys, and beats few random tokens per node', () => {
    // With Q = S or 2S every node is a replica of exactly 3Q/S partitions: only key hashing is uneven.
    for (const q of [10, 20])
      expect(efficiency(nodeLoads(strategy3(10, q, 3), stream))).toBeGreaterThan(0.95);
    // With more partitions the replica sets are within a partition or two of each other.
    const e3 = efficiency(nodeLoads(strategy3(10, 160, 3), stream));
    expect(e3).toBeGreaterThan(0.9);
    const e1 = efficiency(nodeLoads(strategy1(10, 1, 3, createRng(9)), stream));
    expect(e1).toBeLessThan(e3);
    expect(efficiency([2, 2, 2])).toBe(1);
    expect(efficiency([1, 3])).toBeCloseTo(2 / 3);
  });

  it('is deterministic for a seed, and the hottest zipfian key is key-0', () => {
    const settings = {
      ...FIG8_QUICK,
      nodes: 6,
      keys: 2_000,
      requests: 20_000,
      tokensPerNode: [1, 4],
      partitionsPerNode: [1, 4],
    };
    const a = runFig8(settings);
    const b = runFig8(settings);
    expect(a.series).toEqual(b.series);
    expect(a.series.map((s) => s.points.length)).toEqual([4, 4]);
    const zipf = requestStream(1_000, 50_000, { kind: 'zipfian', theta: 0.9 }, createRng(1));
    expect(Math.max(...zipf.requests)).toBe(zipf.requests[0]);
    expect(keyName(0)).toBe('key-0');
  });
});
