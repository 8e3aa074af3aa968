import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claim, createRing, release } from './ring.js';
import { planTransfers, replicasOf } from './transfer-plan.js';

const N = 3;

describe('planTransfers', () => {
  it('gives every new replica of every partition exactly one transfer, from old replicas only', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        fc.constantFrom(16, 64),
        (members, leave, q) => {
          let ring = createRing(q, 'n0');
          for (let i = 1; i < members; i++) ring = claim(ring, `n${i}`, N);
          const next = leave && members > 1 ? release(ring, 'n0', N) : claim(ring, `n${members}`, N);
          const { transfers, retired } = planTransfers(ring, next, N);
          for (let p = 0; p < q; p++) {
            const before = replicasOf(ring, p, N);
            const after = replicasOf(next, p, N);
            const incoming = transfers.filter((t) => t.partition === p).map((t) => t.to);
            expect(incoming.sort()).toEqual(after.filter((x) => !before.includes(x)).sort());
            for (const t of transfers.filter((t) => t.partition === p)) {
              expect(t.sources.length).toBeGreaterThan(0);
              expect(t.sources.every((s) => before.includes(s))).toBe(true);
            }
            expect((retired.get(p) ?? []).sort()).toEqual(before.filter((x) => !after.includes(x)).sort());
          }
        },
      ),
    );
  });

  it('moves nothing when the ring does not change, and never sources from an unavailable node', () => {
    let ring = createRing(32, 'a');
    for (const id of ['b', 'c', 'd']) ring = claim(ring, id, N);
    expect(planTransfers(ring, ring, N).transfers).toEqual([]);
    const next = release(ring, 'd', N);
    const plan = planTransfers(ring, next, N, new Set(['d']));
    expect(plan.transfers.length).toBeGreaterThan(0);
    expect(plan.transfers.every((t) => !t.sources.includes('d') && t.sources.length > 0)).toBe(true);
  });
});
