import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TesseraError } from './errors.js';
import {
  type ClusterState,
  findMember,
  type Member,
  type MemberStatus,
  mergeClusterStates,
  sameClusterState,
  withMember,
} from './membership.js';
import type { Ring } from './ring.js';

// Shapes the server accepts: node ids of [A-Za-z0-9._-], addresses HOST:PORT.
const NODES = ['a', 'b', 'c', 'node-1', 'node.2'];
const STATUSES: MemberStatus[] = ['joining', 'member', 'leaving', 'removed'];
const RANK: Record<MemberStatus, number> = { joining: 0, member: 1, leaving: 2, removed: 3 };
const Q = 4;

const memberArb = (nodeId: string): fc.Arbitrary<Member> =>
  fc.record({
    nodeId: fc.constant(nodeId),
    http: fc.constantFrom('127.0.0.1:7000', '127.0.0.1:7001', '[::1]:7000'),
    peer: fc.constantFrom('127.0.0.1:8000', '10.0.0.2:8000'),
    status: fc.constantFrom(...STATUSES),
    incarnation: fc.integer({ min: 0, max: 3 }),
  });

const membersArb: fc.Arbitrary<Member[]> = fc
  .subarray(NODES)
  .chain((ids) => fc.tuple(...ids.map(memberArb)))
  .map((ms) => [...ms].sort((x, y) => (x.nodeId < y.nodeId ? -1 : 1)));

const ringArb: fc.Arbitrary<Ring> = fc.record({
  partitionCount: fc.constant(Q),
  owners: fc.array(fc.constantFrom(...NODES), { minLength: Q, maxLength: Q }),
  version: fc.integer({ min: 1, max: 3 }),
});

const stateArb: fc.Arbitrary<ClusterState> = fc.record({
  clusterId: fc.constant('cluster-1'),
  ring: ringArb,
  members: membersArb,
});

const merge = mergeClusterStates;

function expectSame(a: ClusterState, b: ClusterState): void {
  expect(sameClusterState(a, b)).toBe(true);
  expect(a).toEqual(b); // addresses too: every node must end up with the same record
}

function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TesseraError);
    return (err as TesseraError).code;
  }
  return undefined;
}

describe('mergeClusterStates', () => {
  it('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(stateArb, stateArb, stateArb, (a, b, c) => {
        expectSame(merge(a, b), merge(b, a));
        expectSame(merge(merge(a, b), c), merge(a, merge(b, c)));
        expectSame(merge(a, a), a);
        expectSame(merge(merge(a, b), b), merge(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('converges whatever order the states are gossiped in', () => {
    fc.assert(
      fc.property(
        fc.array(stateArb, { minLength: 1, maxLength: 6 }),
        fc.func(fc.integer()),
        (states, order) => {
          const shuffled = [...states].sort((x, y) => order(x) - order(y));
          expectSame(states.reduce(merge), shuffled.reduce(merge));
        },
      ),
    );
  });

  it('keeps the ring with the higher version', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        if (a.ring.version !== b.ring.version) {
          expect(m.ring).toEqual(a.ring.version > b.ring.version ? a.ring : b.ring);
        }
        expect(m.ring.version).toBe(Math.max(a.ring.version, b.ring.version));
        expect([a.ring.owners, b.ring.owners]).toContainEqual(m.ring.owners);
      }),
    );
  });

  it('keeps every member once, the record with the higher incarnation, then the later status', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        const m = merge(a, b);
        const ids = [...new Set([...a.members, ...b.members].map((x) => x.nodeId))].sort();
        expect(m.members.map((x) => x.nodeId)).toEqual(ids);
        for (const x of m.members) {
          const candidates = [findMember(a, x.nodeId), findMember(b, x.nodeId)].filter(
            (y) => y !== undefined,
          );
          const inc = Math.max(...candidates.map((y) => y.incarnation));
          expect(x.incarnation).toBe(inc);
          const rank = Math.max(
            ...candidates.filter((y) => y.incarnation === inc).map((y) => RANK[y.status]),
          );
          expect(RANK[x.status]).toBe(rank);
          expect(candidates).toContainEqual(x);
        }
      }),
    );
  });

  it('refuses to merge states of different clusters or ring layouts with CLUSTER_MISMATCH', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (a, b) => {
        expect(thrownCode(() => merge(a, { ...b, clusterId: 'cluster-2' }))).toBe('CLUSTER_MISMATCH');
        expect(thrownCode(() => merge({ ...a, clusterId: 'other' }, b))).toBe('CLUSTER_MISMATCH');
        const bigger: Ring = { partitionCount: 8, owners: new Array<string>(8).fill('a'), version: 9 };
        expect(thrownCode(() => merge(a, { ...b, ring: bigger }))).toBe('CLUSTER_MISMATCH');
      }),
    );
  });
});

describe('withMember / findMember / sameClusterState', () => {
  it('withMember merges one record in, as gossip would', () => {
    fc.assert(
      fc.property(stateArb, fc.constantFrom(...NODES).chain(memberArb), (state, member) => {
        const next = withMember(state, member);
        expectSame(next, merge(state, { ...state, members: [member] }));
        const found = findMember(next, member.nodeId);
        expect(found).toBeDefined();
        expect(found!.incarnation).toBeGreaterThanOrEqual(member.incarnation);
        expect(findMember(next, 'nobody')).toBeUndefined();
      }),
    );
  });

  it('sameClusterState notices a different ring, version, member status or incarnation', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        expect(sameClusterState(s, s)).toBe(true);
        expect(sameClusterState(s, { ...s, ring: { ...s.ring, version: s.ring.version + 1 } })).toBe(false);
        const owners = [...s.ring.owners];
        owners[0] = owners[0] === 'a' ? 'b' : 'a';
        expect(sameClusterState(s, { ...s, ring: { ...s.ring, owners } })).toBe(false);
        if (s.members.length > 0) {
          const [first, ...rest] = s.members;
          const bumped = { ...first!, incarnation: first!.incarnation + 1 };
          expect(sameClusterState(s, { ...s, members: [bumped, ...rest] })).toBe(false);
          const moved = { ...first!, status: STATUSES[(RANK[first!.status] + 1) % STATUSES.length]! };
          expect(sameClusterState(s, { ...s, members: [moved, ...rest] })).toBe(false);
          expect(sameClusterState(s, { ...s, members: rest })).toBe(false);
        }
      }),
    );
  });
});
