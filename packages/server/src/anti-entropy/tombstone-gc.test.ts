import { isTombstone, type KeyState, partitionOf } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import {
  GRACE_MS,
  liveStates,
  Q,
  syncFrom,
  type TestCluster,
  testCluster,
  write,
} from '../../test/anti-entropy/test-cluster.js';

const KEY = 'cart:42';
const P = partitionOf(Q, KEY);

async function states(cluster: TestCluster): Promise<Record<string, KeyState | undefined>> {
  const out: Record<string, KeyState | undefined> = {};
  for (const [id, node] of cluster.nodes) out[id] = await node.store.read(KEY);
  return out;
}

async function exchange(cluster: TestCluster, from: string, peer: string) {
  cluster.clock.ms += 1;
  return cluster.node(from).ae.runOnce({ partition: P, peer });
}

/** A value on a, b and c, then deleted through a while c is away: c still holds the value. */
async function deletedWhileCAway(): Promise<TestCluster> {
  const cluster = await testCluster();
  await write(cluster, 'a', KEY, 'socks', ['b', 'c']);
  cluster.clock.ms += 100;
  await write(cluster, 'a', KEY, undefined, ['b']);
  return cluster;
}

describe('deletes and tombstones', () => {
  it('a replica that missed a delete does not bring the value back, whichever side starts', async () => {
    for (const from of ['c', 'a']) {
      const cluster = await deletedWhileCAway();
      expect((await states(cluster)).c!.siblings).toHaveLength(1);
      const result = await exchange(cluster, from, from === 'c' ? 'a' : 'c');
      expect(result.outcome).toBe('repaired');
      const after = await states(cluster);
      for (const id of ['a', 'b', 'c']) expect(isTombstone(after[id]!), `${id} after ${from}`).toBe(true);
      await syncFrom(cluster, 'b');
      expect(await liveStates(cluster, [KEY])).toEqual(new Map());
    }
  });

  it('is collected only once every replica synced after the delete and the grace period passed', async () => {
    const cluster = await deletedWhileCAway();
    const a = cluster.node('a');
    const collected = () => a.ae.stats().tombstonesCollected;
    // Long after the grace period, but c has not been in sync with a since the delete.
    cluster.clock.ms += 10 * GRACE_MS;
    expect((await exchange(cluster, 'a', 'b')).outcome).toBe('in-sync');
    expect(collected()).toBe(0);
    cluster.net.down.add('c');
    expect((await exchange(cluster, 'a', 'c')).outcome).toBe('failed');
    expect(await a.ae.collect(P)).toBe(0);
    expect(isTombstone((await a.store.read(KEY))!)).toBe(true);
    // c is back: the exchange deletes the value there, ends in sync, and the tombstone goes.
    cluster.net.down.delete('c');
    const result = await exchange(cluster, 'a', 'c');
    expect(result).toMatchObject({ outcome: 'repaired', tombstonesCollected: 1 });
    expect(await a.store.read(KEY)).toBeUndefined();
    expect(isTombstone((await cluster.node('c').store.read(KEY))!)).toBe(true);
  });

  it('waits for the grace period even when every replica is in sync', async () => {
    const cluster = await testCluster();
    await write(cluster, 'a', KEY, 'socks', ['b', 'c']);
    await write(cluster, 'a', KEY, undefined, ['b', 'c']);
    const a = cluster.node('a');
    for (const peer of ['b', 'c']) expect((await exchange(cluster, 'a', peer)).outcome).toBe('in-sync');
    expect(await a.ae.collect(P)).toBe(0);
    cluster.clock.ms += GRACE_MS;
    expect(await a.ae.collect(P)).toBe(1);
    expect(await a.store.read(KEY)).toBeUndefined();
  });

  it('is not pushed back once collected, while other replicas still hold it', async () => {
    const cluster = await testCluster();
    await write(cluster, 'a', KEY, 'socks', ['b', 'c']);
    await write(cluster, 'a', KEY, undefined, ['b', 'c']);
    cluster.clock.ms += GRACE_MS;
    for (const peer of ['b', 'c']) await exchange(cluster, 'a', peer);
    expect(cluster.node('a').ae.stats().tombstonesCollected).toBe(1);
    cluster.net.resetCalls();
    for (const [from, peer] of [
      ['b', 'a'],
      ['c', 'a'],
      ['a', 'b'],
    ] as const) {
      expect((await exchange(cluster, from, peer)).outcome).toBe('in-sync');
    }
    expect(cluster.net.calls.replicate + cluster.net.calls.read).toBe(0);
    expect(await cluster.node('a').store.read(KEY)).toBeUndefined();
    expect(isTombstone((await cluster.node('b').store.read(KEY))!)).toBe(true);
  });

  it('is not collected when a write revives the key first, and the write wins everywhere', async () => {
    const cluster = await testCluster();
    await write(cluster, 'a', KEY, 'socks', ['b', 'c']);
    await write(cluster, 'a', KEY, undefined, ['b', 'c']);
    cluster.clock.ms += GRACE_MS;
    await write(cluster, 'c', KEY, 'shoes'); // only c has it so far
    await exchange(cluster, 'a', 'b');
    const result = await exchange(cluster, 'a', 'c');
    expect(result).toMatchObject({ outcome: 'repaired', keysPulled: 1, tombstonesCollected: 0 });
    await syncFrom(cluster, 'b');
    const live = await liveStates(cluster, [KEY]);
    expect(live.get(KEY)!.siblings).toHaveLength(1);
  });

  it('a stale value that reaches a replica after collection everywhere is not resurrected while one replica still holds the tombstone', async () => {
    const cluster = await testCluster();
    const stale = await write(cluster, 'a', KEY, 'socks', ['b', 'c']);
    await write(cluster, 'a', KEY, undefined, ['b', 'c']);
    cluster.clock.ms += GRACE_MS;
    for (const peer of ['b', 'c']) await exchange(cluster, 'a', peer);
    expect(await cluster.node('a').store.read(KEY)).toBeUndefined();
    // A delayed copy of the old value arrives at a (e.g. a late hint): b's tombstone deletes it again.
    await cluster.node('a').store.merge(KEY, stale);
    await exchange(cluster, 'b', 'a');
    expect(isTombstone((await cluster.node('a').store.read(KEY))!)).toBe(true);
    expect(await liveStates(cluster, [KEY])).toEqual(new Map());
  });

  it('on a partition with no other replica, goes after the grace period alone', async () => {
    const ring = { partitionCount: Q, owners: new Array<string>(Q).fill('a'), version: 1 };
    const cluster = await testCluster({ ids: ['a'], ring, n: 3 });
    await write(cluster, 'a', KEY, 'socks');
    await write(cluster, 'a', KEY, undefined);
    expect((await cluster.node('a').ae.runOnce({ partition: P })).tombstonesCollected).toBe(0);
    cluster.clock.ms += GRACE_MS + 1;
    expect((await cluster.node('a').ae.runOnce({ partition: P })).tombstonesCollected).toBe(1);
  });
});
