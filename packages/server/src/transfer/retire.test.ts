import {
  applyWrite,
  type ClusterState,
  claim,
  createRing,
  decodeState,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  type KeyState,
  partitionOf,
  type Ring,
  release,
  replicasOf,
  TesseraError,
  utf8,
} from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { ClusterView } from '../cluster/cluster-view.js';
import { silentLogger } from '../logger.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { PartitionRetirer } from './retire.js';

const Q = 8;
const N = 2;
const NODES = ['a', 'b', 'c', 'd'];

function ringOf(nodes: readonly string[]): Ring {
  let ring = createRing(Q, nodes[0]!);
  for (const node of nodes.slice(1)) ring = claim(ring, node, N);
  return ring;
}

const write = (stored: KeyState, node: string, value: string): KeyState =>
  applyWrite(stored, { actor: node, context: EMPTY_CONTEXT, value: utf8(value), nowMs: 1, vvEntriesMax: 8 });

/** A key of a partition `self` does not replicate in `ring`. */
function strayKey(ring: Ring, self: string): string {
  for (let i = 0; ; i++) {
    const key = `stray-${i}`;
    if (!replicasOf(ring, partitionOf(Q, key), N).includes(self)) return key;
  }
}

async function setup(self: string, state: ClusterState, clock = { nowMs: 0 }) {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: Q, sync: false });
  await store.open();
  const view = new ClusterView(engine);
  await view.load(self);
  await view.set(state);
  const received = new Map<string, string[]>();
  const replicas = { failing: new Set<string>(), onHandOver: async (): Promise<void> => {} };
  const retirer = new PartitionRetirer({
    self,
    n: N,
    view,
    store,
    retireDelayMs: 0,
    tombstoneGraceMs: 60_000,
    isDown: () => false,
    handOver: async (node, key, bytes) => {
      if (replicas.failing.has(node)) throw new TesseraError('PEER_UNAVAILABLE', `${node} is down`);
      await replicas.onHandOver();
      const values = decodeState(bytes).siblings.map((s) => new TextDecoder().decode(s.value));
      received.set(`${node}/${key}`, values);
    },
    now: () => clock.nowMs,
    log: silentLogger(),
  });
  return { store, retirer, received, replicas };
}

const members = (ids: readonly string[]) =>
  ids.map((nodeId) => ({
    nodeId,
    http: `${nodeId}:0`,
    peer: `${nodeId}:1`,
    status: 'member' as const,
    incarnation: 1,
  }));

describe('PartitionRetirer', () => {
  it('keeps a stray copy while a replica cannot take it, and drops it once every replica has it', async () => {
    // A fallback coordinator's own copy of a write made while every replica was unreachable.
    const ring = ringOf(NODES);
    const key = strayKey(ring, 'd');
    const { store, retirer, received, replicas } = await setup('d', {
      clusterId: 'c',
      ring,
      members: members(NODES),
    });
    await store.merge(key, write(EMPTY_STATE, 'd', '"acked"'));
    const owners = replicasOf(ring, partitionOf(Q, key), N);
    replicas.failing.add(owners[1]!);

    await retirer.tick();
    expect(await store.read(key)).toBeDefined();
    expect(retirer.retiring).toBe(1);
    // The replica that is up has it at once: the copy is not the only one while the other is down.
    expect(received.get(`${owners[0]}/${key}`)).toEqual(['"acked"']);

    replicas.failing.clear();
    await retirer.tick();
    expect(await store.read(key)).toBeUndefined();
    for (const owner of owners) expect(received.get(`${owner}/${key}`)).toEqual(['"acked"']);
    expect(retirer.retiring).toBe(0);
  });

  it('keeps a version that arrived while the key was being handed over, and hands it over next', async () => {
    const ring = ringOf(NODES);
    const key = strayKey(ring, 'd');
    const { store, retirer, received, replicas } = await setup('d', {
      clusterId: 'c',
      ring,
      members: members(NODES),
    });
    const first = write(EMPTY_STATE, 'd', '"one"');
    await store.merge(key, first);
    let late = true;
    replicas.onHandOver = async () => {
      if (!late) return;
      late = false;
      await store.merge(key, write(first, 'a', '"two"'));
    };
    await retirer.tick();
    expect(await store.read(key)).toBeDefined();
    await retirer.tick();
    expect(await store.read(key)).toBeUndefined();
    const owner = replicasOf(ring, partitionOf(Q, key), N)[0]!;
    expect(received.get(`${owner}/${key}`)?.sort()).toEqual(['"one"', '"two"']);
  });

  it('hands over everything a node that left still holds, and leaves a removed node alone', async () => {
    const before = ringOf(NODES);
    const after = release(before, 'd', N);
    const left = (kind: 'leave' | 'remove'): ClusterState => ({
      clusterId: 'c',
      ring: after,
      members: members(NODES).map((m) => (m.nodeId === 'd' ? { ...m, status: 'removed' as const } : m)),
      history: [{ ringVersion: after.version, kind, nodeId: 'd', atMs: 0 }],
    });
    const key = 'late-hint';

    const leaver = await setup('d', left('leave'));
    await leaver.store.merge(key, write(EMPTY_STATE, 'a', '"late"'));
    await leaver.retirer.tick();
    expect(await leaver.store.read(key)).toBeUndefined();
    for (const owner of replicasOf(after, partitionOf(Q, key), N))
      expect(leaver.received.get(`${owner}/${key}`)).toEqual(['"late"']);

    const removed = await setup('d', left('remove'));
    await removed.store.merge(key, write(EMPTY_STATE, 'a', '"old"'));
    await removed.retirer.tick();
    expect(await removed.store.read(key)).toBeDefined();
    expect(removed.received.size).toBe(0);
  });

  it('never hands over a copy older than the tombstone grace (a collected delete may cover it)', async () => {
    const ring = ringOf(NODES);
    const key = strayKey(ring, 'd');
    const clock = { nowMs: 0 };
    const { store, retirer, received, replicas } = await setup(
      'd',
      { clusterId: 'c', ring, members: members(NODES) },
      clock,
    );
    await store.merge(key, write(EMPTY_STATE, 'd', '"old"'));
    for (const owner of replicasOf(ring, partitionOf(Q, key), N)) replicas.failing.add(owner);
    await retirer.tick();
    expect(await store.read(key)).toBeDefined();

    clock.nowMs = 60_002; // the copy last changed at 1; the grace is 60 000
    replicas.failing.clear();
    await retirer.tick();
    expect(await store.read(key)).toBeUndefined();
    expect(received.size).toBe(0);
    expect(retirer.expired).toBe(1);
  });
});
