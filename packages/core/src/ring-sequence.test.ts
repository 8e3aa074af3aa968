import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claim, createRing, partitionCounts, type Ring, release } from './ring.js';

const moved = (a: Ring, b: Ring): number => a.owners.filter((o, i) => o !== b.owners[i]).length;

describe('claim and release over any sequence of joins and leaves', () => {
  it('keep every node within one partition of the others and move the fewest partitions possible', () => {
    const op = fc.oneof(
      fc.constant({ kind: 'join' as const }),
      fc.nat(20).map((i) => ({ kind: 'leave' as const, i })),
    );
    fc.assert(
      fc.property(fc.constantFrom(16, 64, 100), fc.array(op, { minLength: 1, maxLength: 25 }), (q, ops) => {
        let ring = createRing(q, 'm0');
        let next = 1;
        for (const o of ops) {
          const members = [...partitionCounts(ring).keys()].sort();
          let after: Ring;
          let minimum: number;
          if (o.kind === 'join' || members.length === 1) {
            after = claim(ring, `m${next++}`, 3);
            minimum = Math.floor(q / (members.length + 1));
          } else {
            const leaver = members[o.i % members.length]!;
            minimum = partitionCounts(ring).get(leaver)!;
            after = release(ring, leaver, 3);
          }
          expect(moved(ring, after)).toBe(minimum);
          const counts = [...partitionCounts(after).values()];
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
          expect(after.version).toBe(ring.version + 1);
          ring = after;
        }
      }),
    );
  });
});
