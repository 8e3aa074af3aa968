import {
  applyWrite,
  bucketOf,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  MerkleTree,
  treeDigest,
  utf8,
} from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { PartitionTrees } from './partition-trees.js';

/** Lets every pending callback and promise run (a few turns of the event loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('PartitionTrees', () => {
  it('holds a change to an empty partition while it looks at it, and counts the change in the tree after', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let scans = 0;
    const trees = new PartitionTrees(async function* () {
      scans++;
      await gate;
      yield* [];
    });
    const building = trees.tree(0);
    let entered = false;
    const bucket = bucketOf('k');
    const entering = trees.enter(0, bucket).then((release) => {
      entered = true;
      return release;
    });
    await settle();
    expect(entered).toBe(false);
    open();
    const release = await entering;
    const state = applyWrite(EMPTY_STATE, {
      actor: 'n1',
      context: EMPTY_CONTEXT,
      value: utf8('1'),
      nowMs: 1,
      vvEntriesMax: 8,
    });
    trees.changed(0, bucket, 'k', undefined, state, { before: undefined, after: 10 });
    release();
    const expected = new MerkleTree();
    expected.update('k', undefined, treeDigest(state));
    expect((await building).equals(expected)).toBe(true);
    expect(trees.tally()).toMatchObject({ keys: 1, partitionsCounted: 1 });
    expect(scans).toBe(1);
  });

  it('enters at once when no scan is on, and not while the bucket is scanned', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const trees = new PartitionTrees(async function* () {
      await gate;
      yield* [];
    });
    const before = trees.enterNow(0, 700);
    expect(before).toBeTypeOf('function');
    // The build waits for the change entered before it.
    let built = false;
    const building = trees.tree(0).then(() => {
      built = true;
    });
    open();
    await settle();
    expect(built).toBe(false);
    before?.();
    await building;
    const during = new PartitionTrees(async function* () {
      await new Promise<void>(() => {});
      yield* [];
    });
    void during.tree(1);
    await settle();
    expect(during.enterNow(1, 700)).toBeUndefined();
    expect(during.enterNow(2, 700)).toBeTypeOf('function');
  });
});
