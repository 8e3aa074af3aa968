/**
 * Key listing in one process: the coverage query (coordinator/coverage.ts) over in-memory replica
 * stores of three nodes, the replica side (partition-keys.ts) and the cursor codec. What the
 * black-box tests cannot pin down: the bounds of a page, the admission gate, failover between
 * the replicas of a partition, and every way a cursor is refused.
 */
import { type KeyState, type NodeId, partitionOf, type Ring, TesseraError } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { replicasOf } from '../src/anti-entropy/replicas-of.js';
import {
  Coverage,
  type ListingGate,
  type ListPage,
  type ListPosition,
  PAGE_FOREGROUND_UNITS,
  PAGE_SCAN_MAX,
} from '../src/coordinator/coverage.js';
import { PartitionKeys, scanPartitionKeys } from '../src/coordinator/partition-keys.js';
import { decodeListCursor, encodeListCursor } from '../src/http/list-cursor.js';
import { MemoryEngine } from '../src/storage/memory-engine.js';
import { ReplicaStore } from '../src/storage/replica-store.js';
import { createPeerClient } from '../src/transport/grpc-client.js';
import { startPeerServer } from '../src/transport/grpc-server.js';
import type { ListKeysRequest, PeerClient } from '../src/transport/peer-api.js';
import { capturingLogger, expectTesseraError, FakePeer, TIMEOUT_MS } from './grpc-kit.js';

const Q = 8;
const NODES = ['a', 'b', 'c'] as const;
const RING: Ring = {
  partitionCount: Q,
  owners: Array.from({ length: Q }, (_, p) => NODES[p % 3]!),
  version: 1,
};

const live = (v: number): KeyState => ({
  vv: [{ node: 'a~1.0', counter: 1, timestampMs: 1 }],
  siblings: [
    { dot: { node: 'a~1.0', counter: 1 }, lastModifiedMs: 1, value: new TextEncoder().encode(String(v)) },
  ],
});
const tombstone: KeyState = { vv: [{ node: 'a~1.0', counter: 2, timestampMs: 1 }], siblings: [] };

interface FakeCluster {
  readonly stores: Map<NodeId, ReplicaStore>;
  /** Nodes whose calls fail as unreachable. */
  readonly failing: Set<NodeId>;
  /** Partition calls made to each node, local ones included. */
  readonly calls: Map<NodeId, number>;
  coverage(options?: { n?: number; gate?: ListingGate; self?: NodeId; gateCostMax?: number }): Coverage;
}

/** Three nodes on RING; each key stored on every one of its `n` replicas. */
async function cluster(keys: ReadonlyMap<string, KeyState>, n: number): Promise<FakeCluster> {
  const stores = new Map<NodeId, ReplicaStore>();
  for (const node of NODES) {
    const engine = new MemoryEngine();
    await engine.open();
    const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
    await store.open();
    stores.set(node, store);
  }
  await Promise.all(
    [...keys].flatMap(([key, state]) =>
      replicasOf(RING, partitionOf(Q, key), n).map((node) => stores.get(node)!.merge(key, state)),
    ),
  );
  const failing = new Set<NodeId>();
  const calls = new Map<NodeId, number>();
  const count = (node: NodeId): void => {
    calls.set(node, (calls.get(node) ?? 0) + 1);
  };
  return {
    stores,
    failing,
    calls,
    coverage: (o = {}) => {
      const self = o.self ?? 'a';
      const nodeN = o.n ?? n;
      const served = (node: NodeId) =>
        new PartitionKeys({ self: node, n: nodeN, ring: () => RING, store: stores.get(node)! });
      // A peer client that only lists; the coverage query calls nothing else.
      const client = (node: NodeId): PeerClient =>
        ({
          address: `${node}:1`,
          listKeys: async (request: ListKeysRequest) => {
            count(node);
            return served(node).listKeys(request);
          },
        }) as unknown as PeerClient;
      return new Coverage({
        self,
        n: nodeN,
        ring: () => RING,
        local: async (request) => {
          count(self);
          return scanPartitionKeys(stores.get(self)!, request);
        },
        peers: {
          isDown: () => false,
          call: async <T>(node: NodeId, fn: (c: PeerClient) => Promise<T>): Promise<T> => {
            if (failing.has(node)) throw new TesseraError('PEER_UNAVAILABLE', `${node} is unreachable`);
            return fn(client(node));
          },
        },
        gate: o.gate ?? { tryAcquire: () => true },
        gateCostMax: o.gateCostMax ?? 100,
        peerTimeoutMs: 1_000,
        now: Date.now,
      });
    },
  };
}

/** Every page of a listing, from the start to its end. */
async function pages(coverage: Coverage, prefix: string, limit: number): Promise<ListPage[]> {
  const out: ListPage[] = [];
  let from: ListPosition | undefined = { partition: 0 };
  while (from !== undefined) {
    const page = await coverage.list({ prefix, limit, from, timeoutMs: 60_000 });
    out.push(page);
    from = page.next;
    if (out.length > 10_000) throw new Error('the listing did not end');
  }
  return out;
}

function keySet(count: number, prefix: string): Map<string, KeyState> {
  return new Map(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, live(i)]));
}

describe('the coverage query', () => {
  it('lists every live key with the prefix once, in pages of at most `limit`', async () => {
    const keys = new Map([...keySet(600, 'p/'), ...keySet(200, 'q/')]);
    for (let i = 0; i < 600; i += 7) keys.set(`p/${i}`, tombstone);
    const c = await cluster(keys, 2);
    const all = await pages(c.coverage(), 'p/', 50);
    expect(all.length).toBeGreaterThan(1);
    for (const page of all) expect(page.keys.length).toBeLessThanOrEqual(50);
    const listed = all.flatMap((p) => p.keys);
    const expected = [...keys]
      .filter(([k, s]) => k.startsWith('p/') && s.siblings.length > 0)
      .map(([k]) => k);
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual(expected.sort());
    // Partition order: each page's keys never go back to an earlier partition.
    const partitions = listed.map((k) => partitionOf(Q, k));
    expect(partitions).toEqual([...partitions].sort((x, y) => x - y));
    // Partitions 1 and 4 (b's and c's) were asked of b, their first live replica; the others here.
    expect(c.calls.get('b')).toBeGreaterThanOrEqual(2);
    expect(c.calls.get('c')).toBeUndefined();
    expect(c.calls.get('a')).toBeGreaterThanOrEqual(Q - 2);
  });

  it('scans at most PAGE_SCAN_MAX entries per page, even when nothing matches', async () => {
    const c = await cluster(keySet(2 * PAGE_SCAN_MAX + 500, 'k/'), 1);
    const all = await pages(c.coverage(), 'nothing/', 100);
    expect(all.flatMap((p) => p.keys)).toEqual([]);
    for (const page of all) expect(page.scanned).toBeLessThanOrEqual(PAGE_SCAN_MAX);
    expect(all.reduce((sum, p) => sum + p.scanned, 0)).toBe(2 * PAGE_SCAN_MAX + 500);
    expect(all.length).toBeGreaterThanOrEqual(3);
  });

  it('ends a page after its foreground allowance when the gate refuses, still making progress', async () => {
    const keys = keySet(3 * PAGE_FOREGROUND_UNITS, 'k/');
    const c = await cluster(keys, 3);
    const refusals: number[] = [];
    const gate = {
      tryAcquire: (cost: number) => {
        refusals.push(cost);
        return false;
      },
    };
    // A limit no page reaches: pages end by the gate.
    const all = await pages(c.coverage({ gate }), 'k/', 10 * PAGE_FOREGROUND_UNITS);
    expect([...all.flatMap((p) => p.keys)].sort()).toEqual([...keys.keys()].sort());
    for (const page of all) expect(page.scanned).toBeLessThanOrEqual(PAGE_FOREGROUND_UNITS);
    expect(refusals.length).toBeGreaterThan(0);
    for (const cost of refusals) expect(cost).toBeLessThanOrEqual(100);
  });

  it('pays the gate for what it scans past the allowance, in payments it can always admit', async () => {
    const c = await cluster(keySet(5_000, 'k/'), 3);
    const paid: number[] = [];
    const gate = {
      tryAcquire: (cost: number) => {
        paid.push(cost);
        return true;
      },
    };
    const page = await c.coverage({ gate, gateCostMax: 250 }).list({
      prefix: 'nothing/',
      limit: 10,
      from: { partition: 0 },
      timeoutMs: 60_000,
    });
    expect(page.scanned).toBe(5_000);
    for (const cost of paid) expect(cost).toBeLessThanOrEqual(250);
    const total = paid.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(page.scanned - PAGE_FOREGROUND_UNITS - 250);
    expect(total).toBeLessThanOrEqual(page.scanned);
  });

  it('asks another replica when one fails', async () => {
    const keys = keySet(300, 'k/');
    const c = await cluster(keys, 2);
    c.failing.add('b');
    const listed = (await pages(c.coverage(), 'k/', 1_000)).flatMap((p) => p.keys);
    expect([...listed].sort()).toEqual([...keys.keys()].sort());
    expect(c.calls.get('b') ?? 0).toBe(0);
  });

  it('ends a page at a partition no replica answers, and fails the page that starts there', async () => {
    const c = await cluster(keySet(300, 'k/'), 2);
    c.failing.add('b');
    c.failing.add('c');
    // Partition 0 is a's (with b), partition 1 is b's and c's only.
    const coverage = c.coverage();
    const first = await coverage.list({
      prefix: '',
      limit: 1_000,
      from: { partition: 0 },
      timeoutMs: 10_000,
    });
    expect(first.next).toEqual({ partition: 1 });
    expect(first.keys.every((k) => partitionOf(Q, k) === 0)).toBe(true);
    const error = await expectTesseraError(
      coverage.list({ prefix: '', limit: 1_000, from: { partition: 1 }, timeoutMs: 10_000 }),
      'INSUFFICIENT_REPLICAS',
    );
    expect(error.details).toMatchObject({ partition: 1 });
  });

  it('resumes within a partition after the key a page stopped at', async () => {
    const c = await cluster(keySet(400, 'k/'), 3);
    const coverage = c.coverage();
    const first = await coverage.list({ prefix: 'k/', limit: 10, from: { partition: 0 }, timeoutMs: 10_000 });
    expect(first.keys.length).toBe(10);
    expect(first.next).toEqual({ partition: 0, afterKey: first.keys[9] });
    const second = await coverage.list({ prefix: 'k/', limit: 10, from: first.next!, timeoutMs: 10_000 });
    for (const key of second.keys) expect(first.keys).not.toContain(key);
  });
});

describe('the replica side', () => {
  it('answers only for partitions it replicates', async () => {
    const c = await cluster(keySet(10, 'k/'), 1);
    const b = new PartitionKeys({ self: 'b', n: 1, ring: () => RING, store: c.stores.get('b')! });
    await expectTesseraError(
      b.listKeys({ partition: 0, prefix: '', keysMax: 10, scanMax: 10 }),
      'CLUSTER_MISMATCH',
    );
    await expectTesseraError(
      b.listKeys({ partition: Q, prefix: '', keysMax: 10, scanMax: 10 }),
      'CLUSTER_MISMATCH',
    );
    expect((await b.listKeys({ partition: 1, prefix: '', keysMax: 10, scanMax: 10 })).done).toBe(true);
  });

  it('refuses to resume after a key of another partition', async () => {
    const c = await cluster(keySet(10, 'k/'), 1);
    const key = [...Array(100).keys()].map((i) => `x${i}`).find((k) => partitionOf(Q, k) !== 0)!;
    await expectTesseraError(
      scanPartitionKeys(c.stores.get('a')!, {
        partition: 0,
        afterKey: key,
        prefix: '',
        keysMax: 5,
        scanMax: 5,
      }),
      'BAD_REQUEST',
    );
  });

  it('says done only when the scan ran out of entries', async () => {
    const keys = keySet(200, 'k/');
    const c = await cluster(keys, 1);
    const store = c.stores.get('a')!;
    const inPartition0 = [...keys.keys()].filter((k) => partitionOf(Q, k) === 0).length;
    const all = await scanPartitionKeys(store, { partition: 0, prefix: '', keysMax: 1_000, scanMax: 1_000 });
    expect(all).toMatchObject({ scanned: inPartition0, done: true });
    const cut = await scanPartitionKeys(store, { partition: 0, prefix: '', keysMax: 1_000, scanMax: 3 });
    expect(cut).toMatchObject({ scanned: 3, done: false, lastKey: cut.keys[2] });
    const full = await scanPartitionKeys(store, { partition: 0, prefix: '', keysMax: 2, scanMax: 1_000 });
    expect(full).toMatchObject({ scanned: 2, done: false, keys: all.keys.slice(0, 2) });
    expect(
      await scanPartitionKeys(store, { partition: 0, prefix: 'z', keysMax: 5, scanMax: 1_000 }),
    ).toMatchObject({ keys: [], done: true });
  });
});

describe('ListKeys over gRPC', () => {
  it('carries a listing to a peer and back, and refuses malformed requests', async () => {
    const c = await cluster(keySet(300, 'k/'), 1);
    const log = capturingLogger();
    const listing = new PartitionKeys({ self: 'b', n: 1, ring: () => RING, store: c.stores.get('b')! });
    const server = await startPeerServer(new FakePeer(), {
      host: '127.0.0.1',
      port: 0,
      logger: log.logger,
      listing,
    });
    const client = createPeerClient(`127.0.0.1:${server.port}`);
    try {
      const local = await listing.listKeys({ partition: 1, prefix: 'k/', keysMax: 5, scanMax: 100 });
      const remote = await client.listKeys!(
        { partition: 1, prefix: 'k/', keysMax: 5, scanMax: 100 },
        TIMEOUT_MS,
      );
      expect(remote).toEqual(local);
      expect(remote.keys.length).toBe(5);
      const rest = await client.listKeys!(
        { partition: 1, afterKey: remote.lastKey!, prefix: 'k/', keysMax: 1_000, scanMax: 1_000 },
        TIMEOUT_MS,
      );
      expect(rest.done).toBe(true);
      for (const key of rest.keys) expect(remote.keys).not.toContain(key);
      for (const bad of [
        { partition: 1, prefix: '', keysMax: 0, scanMax: 10 },
        { partition: 1, prefix: '', keysMax: 10, scanMax: 0 },
        { partition: 1, prefix: '', keysMax: 1_001, scanMax: 10 },
        { partition: 1, prefix: 'x'.repeat(1_025), keysMax: 10, scanMax: 10 },
      ]) {
        await expectTesseraError(client.listKeys!(bad, TIMEOUT_MS), 'BAD_REQUEST');
      }
      await expectTesseraError(
        client.listKeys!({ partition: 0, prefix: '', keysMax: 10, scanMax: 10 }, TIMEOUT_MS),
        'CLUSTER_MISMATCH',
      );
    } finally {
      client.close();
      await server.close();
    }
  });

  it('is unimplemented on a server that does not list', async () => {
    const log = capturingLogger();
    const server = await startPeerServer(new FakePeer(), { host: '127.0.0.1', port: 0, logger: log.logger });
    const client = createPeerClient(`127.0.0.1:${server.port}`);
    try {
      const error = await client.listKeys!(
        { partition: 0, prefix: '', keysMax: 1, scanMax: 1 },
        TIMEOUT_MS,
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(TesseraError.is(error)).toBe(true);
    } finally {
      client.close();
      await server.close();
    }
  });
});

describe('the listing cursor', () => {
  const scope = { partitionCount: Q, prefix: 'cart/' };
  const keyIn = (p: number): string =>
    [...Array(1_000).keys()].map((i) => `cart/${i}`).find((k) => partitionOf(Q, k) === p)!;

  it('round-trips a position, opaque (base64url)', () => {
    for (const position of [{ partition: 0 }, { partition: 5, afterKey: keyIn(5) }]) {
      const cursor = encodeListCursor(position, scope);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeListCursor(cursor, scope)).toEqual(position);
    }
  });

  it.each([
    ['garbage', 'not base64url!'],
    ['not JSON', Buffer.from('{oops').toString('base64url')],
    ['JSON that is no cursor', Buffer.from('{"v":1}').toString('base64url')],
    ['an unknown version', Buffer.from('{"v":2,"q":8,"p":0,"h":0}').toString('base64url')],
    ['a negative partition', Buffer.from('{"v":1,"q":8,"p":-1,"h":0}').toString('base64url')],
  ])('refuses %s', (_what, cursor) => {
    expect(() => decodeListCursor(cursor, scope)).toThrowError(/cursor is not valid/);
  });

  it('refuses a cursor of another prefix, another layout, or a key of another partition', () => {
    const cursor = encodeListCursor({ partition: 3, afterKey: keyIn(3) }, scope);
    expect(() => decodeListCursor(cursor, { ...scope, prefix: 'other/' })).toThrowError(/another prefix/);
    expect(() => decodeListCursor(cursor, { ...scope, partitionCount: 16 })).toThrowError(/this one has 16/);
    const fields = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<string, unknown>;
    const moved = Buffer.from(JSON.stringify({ ...fields, p: 4 })).toString('base64url');
    expect(() => decodeListCursor(moved, scope)).toThrowError(/does not belong/);
    const beyond = Buffer.from(JSON.stringify({ ...fields, p: Q, k: undefined })).toString('base64url');
    expect(() => decodeListCursor(beyond, scope)).toThrowError(/does not exist/);
    try {
      decodeListCursor(moved, scope);
    } catch (err) {
      expect(TesseraError.is(err) && err.httpStatus).toBe(400);
    }
  });
});
