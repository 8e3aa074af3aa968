/**
 * The transfer receiver pulls its pages through the peer directory, over real gRPC: the dial
 * override is the address it reaches, fault injection blocks its pages like any other call, the
 * failure detector hears of an unreachable source, and a malformed state in a page is refused.
 */
import {
  type ClusterState,
  claim,
  createRing,
  encodeState,
  type KeyState,
  partitionOf,
  planTransfers,
  type Ring,
} from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { capturingLogger, FakePeer } from '../../test/grpc-kit.js';
import { ClusterView } from '../cluster/cluster-view.js';
import { PeerDirectory } from '../cluster/peers.js';
import { type Logger, silentLogger } from '../logger.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { createPeerClient } from '../transport/grpc-client.js';
import { type PeerServerHandle, startPeerServer } from '../transport/grpc-server.js';
import type { PeerClient, TransferEntry, TransferPage } from '../transport/peer-api.js';
import type { TransferSource } from '../transport/transfer-stream.js';
import { CursorStore } from './cursor.js';
import { TransferReceiver } from './receiver.js';

const Q = 8;
/** Nobody listens here: only the dial override reaches the source. */
const ADVERTISED = '127.0.0.1:1';

const from: Ring = createRing(Q, 'a');
const to: Ring = claim(from, 'b', 1);
const state: ClusterState = {
  clusterId: 'c',
  ring: from,
  members: [
    { nodeId: 'a', http: '127.0.0.1:2', peer: ADVERTISED, status: 'member', incarnation: 1 },
    { nodeId: 'b', http: '127.0.0.1:3', peer: '127.0.0.1:4', status: 'joining', incarnation: 1 },
  ],
  pending: { next: to, kind: 'join', nodeId: 'b', done: [] },
};
const gained = planTransfers(from, to, 1).transfers.map((t) => t.partition);

const json = (text: string): KeyState => ({
  vv: [{ node: 'a', counter: 1, timestampMs: 1 }],
  siblings: [{ dot: { node: 'a', counter: 1 }, lastModifiedMs: 1, value: new TextEncoder().encode(text) }],
});

/** Ten keys of every partition `b` gains, and what the pages asked for. */
class FakeSource implements TransferSource {
  readonly asked: TransferPage[] = [];
  /** Replaces a state before it is sent (a broken or hostile source). */
  corrupt: ((entry: TransferEntry) => TransferEntry) | undefined;
  private readonly keys = new Map<number, string[]>();

  constructor() {
    for (let i = 0; [...this.keys.values()].flat().length < 10 * gained.length; i++) {
      const key = `k${i}`;
      const partition = partitionOf(Q, key);
      if (!gained.includes(partition)) continue;
      const keys = this.keys.get(partition) ?? [];
      if (keys.length < 10) this.keys.set(partition, [...keys, key].sort());
    }
  }

  get total(): number {
    return [...this.keys.values()].flat().length;
  }

  async *page(request: TransferPage): AsyncIterable<TransferEntry[]> {
    this.asked.push(request);
    const keys = (this.keys.get(request.partition) ?? []).filter(
      (k) => request.afterKey === undefined || k > request.afterKey,
    );
    const entries = keys
      .slice(0, request.keysMax)
      .map((key) => ({ key, state: encodeState(json(`"${key}"`)) }));
    const corrupt = this.corrupt;
    yield corrupt === undefined ? entries : entries.map(corrupt);
  }
}

const servers: PeerServerHandle[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function sourceNode(source: TransferSource): Promise<string> {
  const server = await startPeerServer(new FakePeer(), {
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    transfer: source,
  });
  servers.push(server);
  return `127.0.0.1:${server.port}`;
}

async function receiverNode(override: string, log: Logger = silentLogger()) {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  await store.open();
  const view = new ClusterView(engine);
  await view.load('b');
  await view.set(state);
  const dialled: string[] = [];
  const connect = (address: string): PeerClient => {
    dialled.push(address);
    return createPeerClient(address);
  };
  const peers = new PeerDirectory('b', connect, 60_000, Date.now, silentLogger(), { a: override });
  peers.sync(state);
  cleanups.push(() => peers.close());
  const receiver = new TransferReceiver({
    self: 'b',
    n: 1,
    view,
    store,
    cursors: new CursorStore(engine, false),
    gate: { tryAcquire: () => true },
    isDown: (node) => peers.isDown(node),
    pageKeys: 4,
    pageCost: 1,
    timeoutMs: 5_000,
    startDelayMs: 0,
    now: Date.now,
    log,
    changed: () => {},
    peers,
  });
  return { store, view, peers, receiver, dialled };
}

async function keysHeld(store: ReplicaStore): Promise<number> {
  let count = 0;
  for (const partition of gained) for await (const _ of store.scanPartition(partition, {})) count++;
  return count;
}

describe('TransferReceiver through the peer directory', () => {
  it('pulls every page over the one channel it dials at the override address', async () => {
    const source = new FakeSource();
    const address = await sourceNode(source);
    const { store, view, receiver, dialled } = await receiverNode(address);

    await receiver.tick();

    expect(view.state?.pending?.done).toEqual(['b']);
    expect(await keysHeld(store)).toBe(source.total);
    // Ten keys per partition in pages of four: three pages each, all over one client.
    expect(source.asked.length).toBe(3 * gained.length);
    expect(dialled).toEqual([address]);
  });

  it('fails a blocked source fast, like any other blocked call, and marks it down', async () => {
    const source = new FakeSource();
    const { store, view, peers, receiver } = await receiverNode(await sourceNode(source));
    peers.block(['a']);

    const started = Date.now();
    await receiver.tick();

    expect(Date.now() - started).toBeLessThan(1_000);
    expect(source.asked).toEqual([]);
    expect(view.state?.pending?.done).toEqual([]);
    expect(await keysHeld(store)).toBe(0);
    expect(peers.isDown('a')).toBe(true);
    expect(peers.health()).toEqual([expect.objectContaining({ nodeId: 'a', failures: 1 })]);
  });

  it('refuses a page holding a malformed state with BAD_REQUEST, and keeps the source up', async () => {
    const source = new FakeSource();
    source.corrupt = (entry) => ({ ...entry, state: encodeState(json('<not json>')) });
    const { logger, lines } = capturingLogger();
    const { store, view, peers, receiver } = await receiverNode(await sourceNode(source), logger);

    await receiver.tick();

    expect(view.state?.pending?.done).toEqual([]);
    expect(await keysHeld(store)).toBe(0);
    expect(peers.isDown('a')).toBe(false);
    const interrupted = lines
      .map((line) => JSON.parse(line) as { msg: string; code?: string })
      .filter((line) => line.msg === 'partition transfer interrupted; will resume');
    expect(interrupted.length).toBeGreaterThan(0);
    expect(interrupted.every((line) => line.code === 'BAD_REQUEST')).toBe(true);
  });
});
