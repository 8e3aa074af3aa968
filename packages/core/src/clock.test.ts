import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_VV,
  type Ordering,
  type VersionVector,
  type VvEntry,
  vvAdd,
  vvCompare,
  vvCovers,
  vvGet,
  vvMerge,
} from './clock.js';

const NODES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

const byNode = (x: VvEntry, y: VvEntry): number => (x.node < y.node ? -1 : x.node > y.node ? 1 : 0);

/** Sorted, one entry per node, counters >= 1; small counters so equal and ordered pairs are common. */
const vvArb = (nodes: readonly string[] = NODES.slice(0, 4), counterMax = 3): fc.Arbitrary<VersionVector> =>
  fc
    .uniqueArray(
      fc.record({
        node: fc.constantFrom(...nodes),
        counter: fc.integer({ min: 1, max: counterMax }),
        timestampMs: fc.integer({ min: 0, max: 50 }),
      }),
      { selector: (e) => e.node, maxLength: nodes.length },
    )
    .map((entries) => [...entries].sort(byNode));

/** The textbook definition, pointwise over every node. */
function referenceCompare(a: VersionVector, b: VersionVector): Ordering {
  const le = NODES.every((n) => vvGet(a, n) <= vvGet(b, n));
  const ge = NODES.every((n) => vvGet(a, n) >= vvGet(b, n));
  return le && ge ? 'equal' : le ? 'before' : ge ? 'after' : 'concurrent';
}

const counters = (vv: VersionVector): string => vv.map((e) => `${e.node}:${e.counter}`).join(',');

function expectWellFormed(vv: VersionVector): void {
  for (let i = 1; i < vv.length; i++) expect(vv[i - 1]!.node < vv[i]!.node).toBe(true);
  for (const e of vv) expect(e.counter).toBeGreaterThanOrEqual(1);
}

describe('vvCompare', () => {
  it('agrees with the pointwise definition', () => {
    fc.assert(
      fc.property(vvArb(), vvArb(), (a, b) => {
        expect(vvCompare(a, b)).toBe(referenceCompare(a, b));
      }),
    );
  });

  it('is reflexive', () => {
    fc.assert(
      fc.property(vvArb(), (a) => {
        expect(vvCompare(a, a)).toBe('equal');
      }),
    );
    expect(vvCompare(EMPTY_VV, EMPTY_VV)).toBe('equal');
  });

  it('is antisymmetric: before/after mirror each other, equal means the same counters', () => {
    const mirror: Record<Ordering, Ordering> = {
      equal: 'equal',
      before: 'after',
      after: 'before',
      concurrent: 'concurrent',
    };
    fc.assert(
      fc.property(vvArb(), vvArb(), (a, b) => {
        const ab = vvCompare(a, b);
        expect(vvCompare(b, a)).toBe(mirror[ab]);
        expect(ab === 'equal').toBe(counters(a) === counters(b));
      }),
    );
  });

  it("is transitive for 'before'", () => {
    // Build chains a <= b <= c by merging, and also check random triples.
    fc.assert(
      fc.property(vvArb(), vvArb(), vvArb(), (a, x, y) => {
        const b = vvMerge(a, x);
        const c = vvMerge(b, y);
        for (const [p, q, r] of [
          [a, b, c],
          [a, x, y],
          [x, y, a],
        ] as const) {
          if (vvCompare(p, q) === 'before' && vvCompare(q, r) === 'before')
            expect(vvCompare(p, r)).toBe('before');
        }
        expect(['before', 'equal']).toContain(vvCompare(a, c));
      }),
    );
  });

  it('knows concurrent vectors', () => {
    const a = [{ node: 'a', counter: 2, timestampMs: 0 }];
    const b = [{ node: 'b', counter: 1, timestampMs: 0 }];
    expect(vvCompare(a, b)).toBe('concurrent');
    expect(vvCompare(a, vvMerge(a, b))).toBe('before');
  });
});

describe('vvMerge', () => {
  it('is commutative, associative and idempotent (timestamps included)', () => {
    fc.assert(
      fc.property(vvArb(), vvArb(), vvArb(), (a, b, c) => {
        expect(vvMerge(a, b)).toEqual(vvMerge(b, a));
        expect(vvMerge(vvMerge(a, b), c)).toEqual(vvMerge(a, vvMerge(b, c)));
        expect(vvMerge(a, a)).toEqual(a);
      }),
    );
  });

  it('is the least upper bound: pointwise maximum, covering both inputs', () => {
    fc.assert(
      fc.property(vvArb(), vvArb(), (a, b) => {
        const m = vvMerge(a, b);
        expectWellFormed(m);
        expect(['before', 'equal']).toContain(vvCompare(a, m));
        expect(['before', 'equal']).toContain(vvCompare(b, m));
        for (const n of NODES) expect(vvGet(m, n)).toBe(Math.max(vvGet(a, n), vvGet(b, n)));
        for (const e of [...a, ...b]) expect(vvCovers(m, e)).toBe(true);
      }),
    );
  });

  it('keeps the timestamp of the larger counter, the later one on ties', () => {
    const old = [{ node: 'a', counter: 5, timestampMs: 10 }];
    const newer = [{ node: 'a', counter: 3, timestampMs: 99 }];
    expect(vvMerge(old, newer)).toEqual(old);
    const tie = [{ node: 'a', counter: 5, timestampMs: 20 }];
    expect(vvMerge(old, tie)).toEqual(tie);
    expect(vvMerge(tie, old)).toEqual(tie);
  });
});

describe('vvAdd and vvCovers', () => {
  it('vvAdd raises one entry to at least the dot, and the result covers the dot', () => {
    fc.assert(
      fc.property(vvArb(), fc.constantFrom(...NODES), fc.integer({ min: 1, max: 6 }), (vv, node, counter) => {
        const out = vvAdd(vv, { node, counter }, 7);
        expectWellFormed(out);
        expect(vvCovers(out, { node, counter })).toBe(true);
        expect(vvGet(out, node)).toBe(Math.max(counter, vvGet(vv, node)));
        for (const n of NODES.filter((x) => x !== node)) expect(vvGet(out, n)).toBe(vvGet(vv, n));
        expect(vvCovers(out, { node, counter: vvGet(out, node) + 1 })).toBe(false);
      }),
    );
  });
});
