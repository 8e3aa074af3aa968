/**
 * A replica's read reply is a state from a peer like any other: decoded within bounds and checked,
 * and refused with BAD_REQUEST when malformed. A peer that answered badly is not unreachable: it
 * is not marked down.
 */
import { type ClusterState, createRing, encodeState, type KeyState } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { expectTesseraError } from '../../test/grpc-kit.js';
import { PeerDirectory } from '../cluster/peers.js';
import { silentLogger } from '../logger.js';
import { HintStore } from '../storage/hint-store.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import type { PeerClient } from '../transport/peer-api.js';
import { Replicas } from './replicas.js';

const Q = 8;
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const withValues = (values: readonly Uint8Array[]): KeyState => ({
  vv: [{ node: 'b', counter: Math.max(1, values.length), timestampMs: 1 }],
  siblings: values.map((value, i) => ({ dot: { node: 'b', counter: i + 1 }, lastModifiedMs: 1, value })),
});

/** Replicas of node `a`, whose peer `b` answers every read with `reply`. */
async function replicasWithReply(reply: Uint8Array) {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  await store.open();
  const hints = new HintStore(engine, { hintsMax: 10, hintBytesMax: 1 << 20, sync: false, now: Date.now });
  const client = { address: 'b:1', read: async () => reply, close: () => {} } as unknown as PeerClient;
  const peers = new PeerDirectory('a', () => client, 60_000, Date.now, silentLogger());
  const cluster: ClusterState = {
    clusterId: 'c',
    ring: createRing(Q, 'a'),
    members: [{ nodeId: 'b', http: 'b:0', peer: 'b:1', status: 'member', incarnation: 1 }],
  };
  peers.sync(cluster);
  return { replicas: new Replicas('a', store, hints, peers), peers };
}

describe('Replicas.read: the reply of a peer', () => {
  it.each([
    ['bytes that do not decode', Uint8Array.of(1, 3, 7)],
    ['a value that is not JSON', encodeState(withValues([text('{oops')]))],
    [
      'more siblings than a peer may send',
      encodeState(withValues(Array.from({ length: 10_001 }, () => text('0')))),
    ],
  ])('refuses %s with BAD_REQUEST, and does not mark the peer down', async (_what, reply) => {
    const { replicas, peers } = await replicasWithReply(reply);
    await expectTesseraError(replicas.read('b', 'k', 1_000), 'BAD_REQUEST');
    expect(peers.isDown('b')).toBe(false);
  });

  it('decodes a well-formed reply', async () => {
    const good = withValues([text('["x"]')]);
    const { replicas } = await replicasWithReply(encodeState(good));
    expect(await replicas.read('b', 'k', 1_000)).toEqual(good);
  });
});
