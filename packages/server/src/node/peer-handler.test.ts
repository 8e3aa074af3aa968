/**
 * A state a peer sends (Replicate over the pipe, plain or as a hint for a down replica) is
 * decoded once, within bounds, and checked: a malformed or oversized one is refused with
 * BAD_REQUEST, over the wire, and nothing is stored.
 */
import { type ClusterState, createRing, encodeState, type KeyState } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { expectTesseraError, TIMEOUT_MS } from '../../test/grpc-kit.js';
import { MerkleResponder } from '../anti-entropy/responder.js';
import { ClusterView } from '../cluster/cluster-view.js';
import type { Coordinator } from '../coordinator/coordinator.js';
import { silentLogger } from '../logger.js';
import { HintStore } from '../storage/hint-store.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { createPeerClient } from '../transport/grpc-client.js';
import { type PeerServerHandle, startPeerServer } from '../transport/grpc-server.js';
import type { PeerClient } from '../transport/peer-api.js';
import { PeerHandler } from './peer-handler.js';

const Q = 8;
const state: ClusterState = { clusterId: 'c', ring: createRing(Q, 'a'), members: [] };

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const withValues = (values: readonly Uint8Array[]): KeyState => ({
  vv: [{ node: 'b', counter: Math.max(1, values.length), timestampMs: 1 }],
  siblings: values.map((value, i) => ({ dot: { node: 'b', counter: i + 1 }, lastModifiedMs: 1, value })),
});

const MALFORMED: ReadonlyArray<[string, Uint8Array]> = [
  ['bytes that do not decode', Uint8Array.of(1, 200)],
  ['a value that is not JSON', encodeState(withValues([text('<b>not json</b>')]))],
  [
    'more siblings than a peer may send',
    encodeState(withValues(Array.from({ length: 10_001 }, () => text('1')))),
  ],
];

let server: PeerServerHandle | undefined;
let client: PeerClient | undefined;
afterEach(async () => {
  client?.close();
  await server?.close();
});

async function servingNode() {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  await store.open();
  const hints = new HintStore(engine, { hintsMax: 100, hintBytesMax: 1 << 20, sync: false, now: Date.now });
  await hints.open();
  const view = new ClusterView(engine);
  await view.load('a');
  await view.set(state);
  const handler = new PeerHandler('a', view, silentLogger());
  const merkle = new MerkleResponder({ self: 'a', n: 1, ring: () => state.ring, store });
  // Replicate never forwards a write: no coordinator is needed behind it.
  handler.ready({ store, hints, merkle, coordinator: {} as unknown as Coordinator });
  server = await startPeerServer(handler, { host: '127.0.0.1', port: 0, logger: silentLogger() });
  client = createPeerClient(`127.0.0.1:${server.port}`);
  return { store, hints, client };
}

describe('PeerHandler: states from peers', () => {
  it.each(MALFORMED)('refuses %s with BAD_REQUEST, as a write and as a hint', async (_what, bytes) => {
    const { store, hints, client } = await servingNode();
    await expectTesseraError(client.replicate('k', bytes, TIMEOUT_MS), 'BAD_REQUEST');
    await expectTesseraError(client.replicate('k', bytes, TIMEOUT_MS, 'c'), 'BAD_REQUEST');
    expect(await store.read('k')).toBeUndefined();
    expect(hints.targets().size).toBe(0);
  });

  it('stores a well-formed state, and keeps serving after refusing one', async () => {
    const { store, hints, client } = await servingNode();
    await expectTesseraError(client.replicate('k', MALFORMED[0]![1], TIMEOUT_MS), 'BAD_REQUEST');
    const good = withValues([text('{"ok":true}')]);
    await client.replicate('k', encodeState(good), TIMEOUT_MS);
    await client.replicate('k', encodeState(good), TIMEOUT_MS, 'c');
    expect(await store.read('k')).toEqual(good);
    expect(hints.targets().get('c')?.count).toBe(1);
  });
});
