/**
 * Operator figures that need no cluster: a transfer source reports what it sent (not 0 as before),
 * `admin status` shows a source's numbers for a receiver that does not answer, and a store's
 * running counts of keys and bytes follow its changes without a scan.
 */
import { applyWrite, EMPTY_CONTEXT, EMPTY_STATE, partitionOf, utf8 } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { type StatusLike, summarize } from '../cli/progress.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { PartitionSource } from './source.js';

const Q = 4;

async function storeWith(keys: readonly string[]): Promise<ReplicaStore> {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  await store.open();
  for (const key of keys) {
    await store.update(key, (s) =>
      applyWrite(s, {
        actor: 'n0',
        context: EMPTY_CONTEXT,
        value: utf8(`"${key}"`),
        nowMs: 1,
        vvEntriesMax: 10,
      }),
    );
  }
  return store;
}

async function drain(pages: AsyncIterable<unknown[]>): Promise<number> {
  let n = 0;
  for await (const chunk of pages) n += chunk.length;
  return n;
}

describe('a transfer source', () => {
  it('counts the keys it sent per partition, and reaches 1 at the end of the partition', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const store = await storeWith(keys);
    const source = new PartitionSource();
    source.ready(store);
    const p = partitionOf(Q, 'k0');
    const inP = keys.filter((k) => partitionOf(Q, k) === p).length;
    expect(inP).toBeGreaterThan(2);

    expect(await drain(source.page({ partition: p, keysMax: 2 }))).toBe(2);
    expect(source.sent.get(p)).toMatchObject({ keysSent: 2 });
    expect(source.sent.get(p)!.progress).toBeLessThan(1);

    await drain(source.page({ partition: p, keysMax: 10_000 }));
    expect(source.sent.get(p)).toEqual({ keysSent: 2 + inP, progress: 1 });
    source.sent.clear();
    expect(source.sent.get(p)).toBeUndefined();
  });
});

describe('admin status transfers', () => {
  it("shows the source's numbers when the receiver does not answer", async () => {
    const row = { partition: 3, from: 'a', to: 'c', keysSent: 0, progress: 0 };
    const base: StatusLike = {
      nodeId: 'a',
      ringVersion: 1,
      pending: { kind: 'join', nodeId: 'c', ringVersion: 2, receivers: ['c'], done: [] },
      transfers: [row],
      members: [
        { nodeId: 'a', http: 'a:1', status: 'up' },
        { nodeId: 'c', http: 'c:1', status: 'joining' },
      ],
      ring: { owners: ['a'] },
    };
    const fetchStatus = async (url: string): Promise<StatusLike> => {
      if (url.includes('c:1')) throw new Error('unreachable');
      return { ...base, transfers: [{ ...row, keysSent: 7, progress: 0.5 }] };
    };
    const summary = await summarize('http://a:1', fetchStatus);
    expect(summary).toMatchObject({ keys: 7, fraction: 0.5 });
  });
});

describe('a replica store', () => {
  it('keeps counts of keys, tombstones and bytes once its partitions are counted', async () => {
    const store = await storeWith(['x', 'y', 'z']);
    expect(store.stored().partitionsCounted).toBe(0);
    for (let p = 0; p < Q; p++) await store.merkleTree(p);
    const counted = store.stored();
    expect(counted).toMatchObject({ keys: 3, tombstones: 0, partitionsCounted: Q });
    expect(counted.bytes).toBeGreaterThan(3);

    await store.update('w', (s) =>
      applyWrite(s, { actor: 'n0', context: EMPTY_CONTEXT, value: utf8('"w"'), nowMs: 2, vvEntriesMax: 10 }),
    );
    // A delete leaves a tombstone: one key fewer, one tombstone more.
    const current = (await store.read('x')) ?? EMPTY_STATE;
    await store.update('x', (s) =>
      applyWrite(s, {
        actor: 'n0',
        context: { vv: current.vv, dots: [] },
        value: undefined,
        nowMs: 3,
        vvEntriesMax: 10,
      }),
    );
    expect(store.stored()).toMatchObject({ keys: 3, tombstones: 1 });
    await store.dropPartition(partitionOf(Q, 'w'));
    expect(store.stored().keys).toBe(
      3 - [...'yzw'].filter((k) => partitionOf(Q, k) === partitionOf(Q, 'w')).length,
    );
  });
});
