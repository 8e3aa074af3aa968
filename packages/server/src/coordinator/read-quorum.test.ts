/**
 * A quorum read under a sloppy quorum (paper 4.6): a replica that turns out unreachable during the
 * read (not yet known down) is stood in for by the next healthy node of the preference list, as a
 * write's is, so a read reaches R nodes whenever R are reachable.
 */
import {
  applyWrite,
  type ClusterState,
  createRing,
  decodeState,
  EMPTY_CONTEXT,
  encodeState,
  TesseraError,
  utf8,
} from '@tessera/core';
import { describe, expect, it, vi } from 'vitest';
import { PeerDirectory } from '../cluster/peers.js';
import { silentLogger } from '../logger.js';
import { HintStore } from '../storage/hint-store.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import type { PeerClient } from '../transport/peer-api.js';
import { Deadlines } from '../util/deadlines.js';
import { readQuorum } from './read-quorum.js';
import { Replicas } from './replicas.js';

async function replicasOf(down: readonly string[], held: Record<string, Uint8Array>) {
  const engine = new MemoryEngine();
  await engine.open();
  const store = new ReplicaStore(engine, { partitionCount: 8, sync: false });
  await store.open();
  const hints = new HintStore(engine, { hintsMax: 10, hintBytesMax: 1 << 20, sync: false, now: Date.now });
  const asked: string[] = [];
  const repaired: { node: string; key: string; state: Uint8Array }[] = [];
  const clientOf = (id: string): PeerClient =>
    ({
      address: `${id}:1`,
      replicate: async (key: string, state: Uint8Array) => {
        repaired.push({ node: id, key, state });
      },
      read: async () => {
        asked.push(id);
        if (down.includes(id)) throw new TesseraError('PEER_UNAVAILABLE', `${id} is down`);
        return held[id];
      },
      close: () => {},
    }) as unknown as PeerClient;
  const cluster: ClusterState = {
    clusterId: 'c',
    ring: createRing(8, 'a'),
    members: ['b', 'c', 'd', 'e'].map((id) => ({
      nodeId: id,
      http: `${id}:0`,
      peer: `${id}:1`,
      status: 'member' as const,
      incarnation: 1,
    })),
  };
  const peers = new PeerDirectory(
    'a',
    (address) => clientOf(address.split(':')[0]!),
    1_000,
    Date.now,
    silentLogger(),
  );
  peers.sync(cluster);
  return { replicas: new Replicas('a', store, hints, peers), store, asked, repaired };
}

const settings = { n: 3, r: 2, timeoutMs: 1_000, peerTimeoutMs: 1_000 };

describe('a quorum read', () => {
  it('asks the next healthy node when a replica turns out unreachable, and reads what R nodes hold', async () => {
    const { replicas, store, asked } = await replicasOf(['b', 'c'], {});
    const written = applyWrite((await store.read('k')) ?? { vv: [], siblings: [] }, {
      actor: 'a',
      context: EMPTY_CONTEXT,
      value: utf8('"v"'),
      nowMs: 1,
      vvEntriesMax: 8,
    });
    await store.merge('k', written);
    const read = await readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c', 'd', 'e'], 'k', settings);
    expect(read.state.siblings.map((s) => new TextDecoder().decode(s.value))).toEqual(['"v"']);
    expect(asked.sort()).toEqual(['b', 'c', 'd', 'e']);
    expect(read.nextCoordinator).toBe('a');
  });

  it('fails with INSUFFICIENT_REPLICAS only when fewer than R nodes can be reached at all', async () => {
    const held = { d: encodeState({ vv: [], siblings: [] }) };
    const { replicas } = await replicasOf(['b', 'c', 'd', 'e'], held);
    const read = readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c', 'd', 'e'], 'k', settings);
    await expect(read).rejects.toMatchObject({ code: 'INSUFFICIENT_REPLICAS' });
  });

  it("waits for the coordinator's own copy when it is a replica, even when R others answered first", async () => {
    const { replicas, store } = await replicasOf([], {});
    await store.merge(
      'k',
      applyWrite(
        { vv: [], siblings: [] },
        { actor: 'a', context: EMPTY_CONTEXT, value: utf8('"mine"'), nowMs: 1, vvEntriesMax: 8 },
      ),
    );
    // b and c (fallbacks standing in, say) answer at once that they hold nothing; this node's own
    // read is slower (a LevelDB read on a busy thread pool).
    const readVersion = store.readVersion.bind(store);
    store.readVersion = async (key) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return readVersion(key);
    };
    const read = await readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c'], 'k', settings);
    expect(read.state.siblings.map((s) => new TextDecoder().decode(s.value))).toEqual(['"mine"']);
  });

  it('names this node as the next write coordinator when its own copy is in the answer, even when a peer answered first', async () => {
    const mine = applyWrite(
      { vv: [], siblings: [] },
      { actor: 'a', context: EMPTY_CONTEXT, value: utf8('"v"'), nowMs: 1, vvEntriesMax: 8 },
    );
    const { replicas, store } = await replicasOf([], { b: encodeState(mine), c: encodeState(mine) });
    await store.merge('k', mine);
    // b and c answer at once; this node's own read is slower (a LevelDB read on a busy thread pool).
    const readVersion = store.readVersion.bind(store);
    store.readVersion = async (key) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return readVersion(key);
    };
    const read = await readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c'], 'k', settings);
    // A write with this context through this node stays here instead of being forwarded to b.
    expect(read.nextCoordinator).toBe('a');
  });

  it('names the replica that answered first when this node is not a replica of the key', async () => {
    const theirs = applyWrite(
      { vv: [], siblings: [] },
      { actor: 'b', context: EMPTY_CONTEXT, value: utf8('"v"'), nowMs: 1, vvEntriesMax: 8 },
    );
    const { replicas } = await replicasOf([], { b: encodeState(theirs), c: encodeState(theirs) });
    const read = await readQuorum('a', replicas, new Deadlines(), ['b', 'c', 'd'], 'k', settings);
    expect(['b', 'c']).toContain(read.nextCoordinator);
  });

  it('answers from R other replicas when its own read never returns, within peerTimeoutMs of them', async () => {
    const theirs = applyWrite(
      { vv: [], siblings: [] },
      { actor: 'b', context: EMPTY_CONTEXT, value: utf8('"theirs"'), nowMs: 1, vvEntriesMax: 8 },
    );
    const { replicas, store } = await replicasOf([], { b: encodeState(theirs), c: encodeState(theirs) });
    store.readVersion = () => new Promise(() => {}); // a local read stuck for good
    const started = Date.now();
    const read = await readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c'], 'k', {
      ...settings,
      peerTimeoutMs: 100,
    });
    expect(read.state.siblings.map((s) => new TextDecoder().decode(s.value))).toEqual(['"theirs"']);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('once every replica answered, repairs the stale ones with the merged version (paper 5)', async () => {
    const old = applyWrite(
      { vv: [], siblings: [] },
      { actor: 'b', context: EMPTY_CONTEXT, value: utf8('"old"'), nowMs: 1, vvEntriesMax: 8 },
    );
    const current = applyWrite(old, {
      actor: 'b',
      context: { ...EMPTY_CONTEXT, vv: old.vv },
      value: utf8('"new"'),
      nowMs: 2,
      vvEntriesMax: 8,
    });
    // b holds the current version, c the old one; this node holds nothing, and answers first.
    const { replicas, store, repaired } = await replicasOf([], {
      b: encodeState(current),
      c: encodeState(old),
    });
    const read = await readQuorum('a', replicas, new Deadlines(), ['a', 'b', 'c'], 'k', settings);
    expect(read.state.siblings.map((s) => new TextDecoder().decode(s.value))).toEqual(['"new"']);
    await vi.waitFor(() => expect(repaired.map((r) => r.node).sort()).toEqual(['c']), { timeout: 2_000 });
    expect(decodeState(repaired[0]!.state)).toEqual(current);
    // This node's own copy, which held nothing, is brought up to date too.
    await vi.waitFor(async () => expect(await store.read('k')).toEqual(current), { timeout: 2_000 });
  });
});
