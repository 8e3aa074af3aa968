import {
  applyWrite,
  type ClusterState,
  claim,
  createRing,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  TesseraError,
} from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { PeerDirectory } from '../cluster/peers.js';
import { silentLogger } from '../logger.js';
import { HintStore } from '../storage/hint-store.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import type { PeerClient } from '../transport/peer-api.js';
import { Handoff } from './handoff.js';

const state = (v: string) =>
  applyWrite(EMPTY_STATE, {
    actor: 'a',
    context: EMPTY_CONTEXT,
    value: new TextEncoder().encode(`"${v}"`),
    nowMs: 1,
    vvEntriesMax: 8,
  });

async function setup(options: { failing?: boolean; tokens?: number; refuse?: string } = {}) {
  let now = 1_000;
  const engine = new MemoryEngine();
  await engine.open();
  const hints = new HintStore(engine, { hintsMax: 100, hintBytesMax: 1 << 20, sync: false, now: () => now });
  const received: string[] = [];
  const client = {
    address: 'b:1',
    replicate: async (key: string) => {
      if (options.failing) throw new TesseraError('PEER_UNAVAILABLE', 'down');
      if (key === options.refuse) throw new TesseraError('VALUE_TOO_LARGE', 'too large for one message');
      received.push(key);
    },
    close: () => {},
  } as unknown as PeerClient;
  const cluster: ClusterState = {
    clusterId: 'c',
    ring: createRing(8, 'a'),
    members: [{ nodeId: 'b', http: 'b:0', peer: 'b:1', status: 'member', incarnation: 1 }],
  };
  const peers = new PeerDirectory(
    'a',
    () => client,
    1_000,
    () => now,
    silentLogger(),
  );
  peers.sync(cluster);
  let tokens = options.tokens ?? Number.POSITIVE_INFINITY;
  const handoff = new Handoff({
    hints,
    peers,
    gate: { tryAcquire: () => tokens-- > 0 },
    batchMax: 10,
    intervalMs: 1_000,
    timeoutMs: 100,
    hintTtlMs: 60_000,
    now: () => now,
    log: silentLogger(),
  });
  return { hints, handoff, received, advance: (ms: number) => (now += ms) };
}

describe('Handoff', () => {
  it('delivers hints to their owner and deletes them only once delivered', async () => {
    const { hints, handoff, received } = await setup();
    await hints.add('b', 'k1', state('1'));
    await hints.add('b', 'k2', state('2'));
    expect(await handoff.runOnce()).toMatchObject({ delivered: 2, failed: 0 });
    expect(received.sort()).toEqual(['k1', 'k2']);
    expect(hints.totals().count).toBe(0);
  });

  it('delivers the other hints when the owner refuses one (its state too large, say), and keeps that one until it expires', async () => {
    const { hints, handoff, received, advance } = await setup({ refuse: 'k1' });
    for (const key of ['k1', 'k2', 'k3']) await hints.add('b', key, state(key));
    expect(await handoff.runOnce()).toMatchObject({ delivered: 2, failed: 1 });
    expect(received.sort()).toEqual(['k2', 'k3']);
    expect(hints.totals().count).toBe(1);
    advance(60_001);
    expect(await handoff.runOnce()).toMatchObject({ expired: 1 });
    expect(hints.totals().count).toBe(0);
  });

  it('keeps hints when the owner is still down', async () => {
    const { hints, handoff } = await setup({ failing: true });
    await hints.add('b', 'k1', state('1'));
    expect(await handoff.runOnce()).toMatchObject({ delivered: 0, failed: 1 });
    expect(hints.totals().count).toBe(1);
  });

  it('defers what admission control does not admit, and drops hints older than hintTtlMs', async () => {
    const deferred = await setup({ tokens: 1 });
    await deferred.hints.add('b', 'k1', state('1'));
    await deferred.hints.add('b', 'k2', state('2'));
    expect(await deferred.handoff.runOnce()).toMatchObject({ delivered: 1, deferred: 1 });
    expect(deferred.hints.totals().count).toBe(1);

    const old = await setup();
    await old.hints.add('b', 'stale', state('s'));
    old.advance(60_001);
    expect(await old.handoff.runOnce()).toMatchObject({ expired: 1, delivered: 0 });
    expect(old.received).toEqual([]);
    expect(old.hints.totals().count).toBe(0);
  });
});

describe('Handoff after a ring change', () => {
  it("sends a hint whose target left the ring to the key's current replicas, this node included", async () => {
    const now = 1_000;
    const engine = new MemoryEngine();
    await engine.open();
    const hints = new HintStore(engine, {
      hintsMax: 100,
      hintBytesMax: 1 << 20,
      sync: false,
      now: () => now,
    });
    const received: string[] = [];
    const clientOf = (node: string) =>
      ({
        address: `${node}:1`,
        replicate: async (key: string) => {
          received.push(`${node}/${key}`);
        },
        close: () => {},
      }) as unknown as PeerClient;
    // Ring of a and b (N=2): c left it, so the peers no longer know c.
    const ring = claim(createRing(8, 'a'), 'b', 2);
    const peers = new PeerDirectory(
      'a',
      (address) => clientOf(address.split(':')[0]!),
      1_000,
      () => now,
      silentLogger(),
    );
    peers.sync({
      clusterId: 'c',
      ring,
      members: ['a', 'b', 'c'].map((nodeId) => ({
        nodeId,
        http: `${nodeId}:0`,
        peer: `${nodeId}:1`,
        status: nodeId === 'c' ? ('removed' as const) : ('member' as const),
        incarnation: 1,
      })),
    });
    const merged: string[] = [];
    const handoff = new Handoff({
      hints,
      peers,
      gate: { tryAcquire: () => true },
      batchMax: 10,
      intervalMs: 1_000,
      timeoutMs: 100,
      hintTtlMs: 60_000,
      now: () => now,
      log: silentLogger(),
      placement: {
        self: 'a',
        n: 2,
        ring: () => ring,
        nextRing: () => undefined,
        mergeLocal: async (key) => merged.push(key),
      },
    });
    await hints.add('c', 'k1', state('1'));
    expect(await handoff.runOnce()).toMatchObject({ delivered: 1, failed: 0 });
    expect(received).toEqual(['b/k1']);
    expect(merged).toEqual(['k1']);
    expect(hints.totals().count).toBe(0);
  });
});
