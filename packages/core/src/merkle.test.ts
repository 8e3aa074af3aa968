import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VvEntry } from './clock.js';
import { TesseraError } from './errors.js';
import { keyPosition } from './hash.js';
import {
  bucketOf,
  childrenOf,
  differingBuckets,
  diffHashes,
  diffKeyDigests,
  levelWidth,
  MERKLE_BUCKETS,
  MERKLE_HASH_BYTES,
  MERKLE_LEAF_LEVEL,
  MERKLE_TREE_BYTES,
  MerkleTree,
  placeOf,
  type RemoteHashes,
  STATE_DIGEST_PATTERN,
  type StateDigest,
  stateDigest,
  treeDigest,
} from './merkle.js';
import { PARTITION_COUNT_MAX, partitionOf } from './ring.js';
import { type KeyState, type Sibling, sameState } from './versions.js';

// A small domain, so that equal states (and near misses) come up often.
const NODES = ['a', 'b', 'c'];
const vvArb: fc.Arbitrary<VvEntry[]> = fc.subarray(NODES).chain((nodes) =>
  fc.tuple(
    ...nodes.map((node) =>
      fc.record({
        node: fc.constant(node),
        counter: fc.integer({ min: 1, max: 3 }),
        timestampMs: fc.nat(9),
      }),
    ),
  ),
);
const siblingArb: fc.Arbitrary<Sibling> = fc.record({
  dot: fc.record({ node: fc.constantFrom(...NODES), counter: fc.integer({ min: 1, max: 3 }) }),
  value: fc.uint8Array({ maxLength: 2 }),
  lastModifiedMs: fc.nat(9),
});
const stateArb: fc.Arbitrary<KeyState> = fc.record({
  vv: vvArb,
  siblings: fc.uniqueArray(siblingArb, {
    maxLength: 2,
    selector: (s) => `${s.dot.node}${s.dot.counter}`,
  }),
});
const keyArb = fc.string({ maxLength: 6 });
/** A replica's partition: key -> state (or no state). */
const replicaArb = fc.dictionary(keyArb, fc.option(stateArb, { nil: undefined }), { maxKeys: 40 });

type Replica = Record<string, KeyState | undefined>;

function build(replica: Replica): MerkleTree {
  const tree = new MerkleTree();
  for (const [key, state] of Object.entries(replica)) tree.update(key, undefined, treeDigest(state));
  return tree;
}

function listing(replica: Replica, buckets: ReadonlySet<number>): Map<string, StateDigest> {
  const out = new Map<string, StateDigest>();
  for (const [key, state] of Object.entries(replica)) {
    const digest = treeDigest(state);
    if (digest !== undefined && buckets.has(bucketOf(key))) out.set(key, digest);
  }
  return out;
}

const remoteOf =
  (tree: MerkleTree, calls: number[][] = []): RemoteHashes =>
  async (level, indices) => {
    calls.push([level, indices.length]);
    return tree.hashes(level, indices);
  };

describe('state digests', () => {
  it('are equal exactly when sameState is', () => {
    fc.assert(
      fc.property(stateArb, stateArb, (x, y) => {
        expect(stateDigest(x) === stateDigest(y)).toBe(sameState(x, y));
        expect(stateDigest(x)).toMatch(STATE_DIGEST_PATTERN);
      }),
      { numRuns: 2000 },
    );
  });

  it('ignore timestamps, values and deletedAtMs', () => {
    const state: KeyState = {
      vv: [{ node: 'a', counter: 2, timestampMs: 1 }],
      siblings: [{ dot: { node: 'a', counter: 2 }, value: Uint8Array.of(1), lastModifiedMs: 1 }],
    };
    const other: KeyState = {
      vv: [{ node: 'a', counter: 2, timestampMs: 7 }],
      siblings: [{ dot: { node: 'a', counter: 2 }, value: Uint8Array.of(2), lastModifiedMs: 7 }],
      deletedAtMs: 3,
    };
    expect(stateDigest(other)).toBe(stateDigest(state));
  });

  it('leave tombstones and missing states out of the tree', () => {
    expect(treeDigest(undefined)).toBeUndefined();
    expect(treeDigest({ vv: [{ node: 'a', counter: 1, timestampMs: 0 }], siblings: [] })).toBeUndefined();
  });
});

describe('MerkleTree', () => {
  it('has the stated shape and size', () => {
    expect([0, 1, 2].map(levelWidth)).toEqual([1, 32, MERKLE_BUCKETS]);
    expect(MERKLE_TREE_BYTES).toBe(8456);
    expect(new MerkleTree().hashes(MERKLE_LEAF_LEVEL, [0, 1023])).toEqual(new Uint8Array(16));
  });

  it('updated incrementally equals a rebuild of the final contents', () => {
    const opArb = fc.tuple(keyArb, fc.option(stateArb, { nil: undefined }));
    fc.assert(
      fc.property(replicaArb, fc.array(opArb, { maxLength: 60 }), (start, ops) => {
        const replica: Replica = { ...start };
        const tree = build(replica);
        for (const [key, state] of ops) {
          tree.update(key, treeDigest(replica[key]), treeDigest(state));
          replica[key] = state;
        }
        expect(tree.equals(build(replica))).toBe(true);
      }),
    );
  });

  it('cancels a key removed and added again, back to the very same tree', () => {
    fc.assert(
      fc.property(replicaArb, keyArb, stateArb, (replica, key, state) => {
        const digest = treeDigest(state);
        const tree = build(replica);
        const before = build(replica);
        const current = treeDigest(replica[key]);
        tree.update(key, current, undefined);
        tree.update(key, undefined, digest);
        tree.update(key, digest, undefined);
        tree.update(key, undefined, current);
        expect(tree.equals(before)).toBe(true);
        const all = new MerkleTree();
        for (const [k, s] of Object.entries(replica)) all.update(k, undefined, treeDigest(s));
        for (const [k, s] of Object.entries(replica)) all.update(k, treeDigest(s), undefined);
        expect(all.equals(new MerkleTree())).toBe(true);
      }),
    );
  });
});

describe('diff', () => {
  it('names exactly the keys whose live states differ', async () => {
    // Two replicas that share a history and then diverge on some keys.
    const arb = fc.tuple(replicaArb, fc.dictionary(keyArb, fc.option(stateArb, { nil: undefined })));
    await fc.assert(
      fc.asyncProperty(arb, async ([ours, changes]) => {
        const theirs: Replica = { ...ours, ...changes };
        const buckets = await differingBuckets(build(ours), remoteOf(build(theirs)));
        const set = new Set(buckets);
        const differing = diffKeyDigests(listing(ours, set), listing(theirs, set));
        const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
        const expected = [...keys].filter((k) => treeDigest(ours[k]) !== treeDigest(theirs[k])).sort();
        expect(differing).toEqual(expected);
        expect(buckets).toEqual([...new Set(expected.map(bucketOf))].sort((x, y) => x - y));
      }),
    );
  });

  it('asks only for the root when the trees are equal, and only below differing nodes otherwise', async () => {
    const replica: Replica = { k1: { vv: [{ node: 'a', counter: 1, timestampMs: 0 }], siblings: [] } };
    const calls: number[][] = [];
    expect(await differingBuckets(build(replica), remoteOf(build(replica), calls))).toEqual([]);
    expect(calls).toEqual([[0, 1]]);
    const live: KeyState = {
      vv: [{ node: 'a', counter: 1, timestampMs: 0 }],
      siblings: [{ dot: { node: 'a', counter: 1 }, value: Uint8Array.of(1), lastModifiedMs: 0 }],
    };
    calls.length = 0;
    // A tombstone against nothing is no difference; a live value against a tombstone is.
    const buckets = await differingBuckets(build({ ...replica, k2: live }), remoteOf(build(replica), calls));
    expect(buckets).toEqual([bucketOf('k2')]);
    expect(calls).toEqual([
      [0, 1],
      [1, 32],
      [2, 32],
    ]);
  });

  it('diffHashes and childrenOf work on node positions', () => {
    const ours = Uint8Array.of(...new Array<number>(16).fill(0));
    const theirs = ours.slice();
    theirs[MERKLE_HASH_BYTES + 7] = 1;
    expect(diffHashes([4, 9], ours, theirs)).toEqual([9]);
    expect(childrenOf(1, [2])).toEqual(Array.from({ length: 32 }, (_, i) => 64 + i));
  });

  it('refuses bad levels, indices and hash lengths with BAD_REQUEST', () => {
    const tree = new MerkleTree();
    for (const bad of [
      () => tree.hashes(3, [0]),
      () => tree.hashes(1, [32]),
      () => tree.hashes(0, [-1]),
      () => childrenOf(MERKLE_LEAF_LEVEL, [0]),
      () => diffHashes([0], new Uint8Array(8), new Uint8Array(7)),
    ]) {
      expect(bad).toThrow(TesseraError);
    }
  });

  it('diffKeyDigests lists keys on one side only and keys with other digests, sorted', () => {
    const ours = new Map([
      ['b', '0000000000000001'],
      ['a', '0000000000000002'],
      ['same', '0000000000000003'],
    ]);
    const theirs = new Map([
      ['same', '0000000000000003'],
      ['a', '0000000000000009'],
      ['c', '0000000000000004'],
    ]);
    expect(diffKeyDigests(ours, theirs)).toEqual(['a', 'b', 'c']);
  });
});

describe('placeOf', () => {
  it('answers partitionOf, bucketOf and keyPosition of any key, for any Q', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', maxLength: 300 })),
        fc.integer({ min: 1, max: PARTITION_COUNT_MAX }),
        (key, q) => {
          expect(placeOf(q, key)).toEqual([partitionOf(q, key), bucketOf(key), keyPosition(key)]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
