import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ClusterState, mergeClusterStates } from './membership.js';
import type { Ring } from './ring.js';
import {
  type ChangeRecord,
  HISTORY_MAX,
  mergeHistory,
  type PendingChange,
  withRecord,
} from './ring-change.js';

const NODES = ['a', 'b', 'c', 'd'];
const Q = 4;

const ringArb = (versions: fc.Arbitrary<number>): fc.Arbitrary<Ring> =>
  fc.record({
    partitionCount: fc.constant(Q),
    owners: fc.array(fc.constantFrom(...NODES), { minLength: Q, maxLength: Q }),
    version: versions,
  });

const pendingArb: fc.Arbitrary<PendingChange> = fc.record({
  next: ringArb(fc.integer({ min: 2, max: 4 })),
  kind: fc.constantFrom('join' as const, 'leave' as const, 'remove' as const),
  nodeId: fc.constantFrom(...NODES),
  done: fc.subarray(NODES),
});

const recordArb: fc.Arbitrary<ChangeRecord> = fc.record({
  ringVersion: fc.integer({ min: 1, max: 6 }),
  kind: fc.constantFrom('join' as const, 'leave' as const, 'remove' as const),
  nodeId: fc.constantFrom(...NODES),
  atMs: fc.integer({ min: 0, max: 5 }),
});

const stateArb: fc.Arbitrary<ClusterState> = fc
  .record({
    ring: ringArb(fc.integer({ min: 1, max: 3 })),
    pending: fc.option(pendingArb, { nil: undefined }),
    history: fc.array(recordArb, { maxLength: 6 }),
  })
  .map(({ ring, pending, history }) => ({
    clusterId: 'c',
    ring,
    members: [],
    ...(pending === undefined ? {} : { pending }),
    // A state as merge produces it: history deduplicated and sorted.
    ...(history.length === 0 ? {} : { history: mergeHistory(history) }),
  }));

const merge = mergeClusterStates;
/** Merged states are normalized: compare a state as merge would leave it. */
const norm = (s: ClusterState): ClusterState => merge(s, s);

describe('pending ring changes and change history merge as a semilattice', () => {
  it('merge is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(stateArb, stateArb, stateArb, (a, b, c) => {
        expect(merge(a, b)).toEqual(merge(b, a));
        expect(merge(merge(a, b), c)).toEqual(merge(a, merge(b, c)));
        expect(merge(merge(a, b), b)).toEqual(merge(a, b));
        expect(merge(norm(a), norm(a))).toEqual(norm(a));
      }),
      { numRuns: 500 },
    );
  });

  it('drops a pending change once the ring reached its version, and joins done lists of the same change', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        if (m.pending !== undefined) expect(m.pending.next.version).toBeGreaterThan(m.ring.version);
        if (a.pending !== undefined && b.pending !== undefined && m.pending !== undefined) {
          const same =
            JSON.stringify({ ...a.pending, done: [] }) === JSON.stringify({ ...b.pending, done: [] });
          if (same)
            expect(m.pending.done).toEqual([...new Set([...a.pending.done, ...b.pending.done])].sort());
        }
      }),
    );
  });

  it('keeps at most HISTORY_MAX records, the latest ones', () => {
    let history: ChangeRecord[] = [];
    for (let v = 1; v <= HISTORY_MAX + 20; v++)
      history = withRecord(history, { ringVersion: v, kind: 'join', nodeId: 'a', atMs: v });
    expect(history).toHaveLength(HISTORY_MAX);
    expect(history[0]!.ringVersion).toBe(21);
    expect(history.at(-1)!.ringVersion).toBe(HISTORY_MAX + 20);
  });
});
