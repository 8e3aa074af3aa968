/**
 * A local write that fails after its version went out starts a new incarnation (coordinator.ts
 * `sentButNotStored`), and a group of changes that failed together starts one, not one per change:
 * each renewal is a new actor in every clock this node stamps from then on, and clocks are bounded
 * (`vvEntriesMax`), so one failed group must not spend several.
 */
import { createRing } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerDirectory } from '../src/cluster/peers.js';
import { Coordinator } from '../src/coordinator/coordinator.js';
import { silentLogger } from '../src/logger.js';
import { Incarnation } from '../src/node/incarnation.js';
import { HintStore } from '../src/storage/hint-store.js';
import { MemoryEngine } from '../src/storage/memory-engine.js';
import { ReplicaStore } from '../src/storage/replica-store.js';
import { failingBatches } from './failing-engine.js';

const log = silentLogger();
const engines: MemoryEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

async function singleNode(failing: { on: boolean }) {
  const disk = new MemoryEngine();
  await disk.open();
  engines.push(disk);
  // Batches of key data fail while `failing.on` (the incarnation's own writes pass).
  const engine = failingBatches(disk, (ops) => failing.on && ops.some((op) => op.ns === 'data'));
  const life = await Incarnation.open(engine, { node: 'n0', random: Math.random });
  let renewals = 0;
  const incarnation = {
    get actors() {
      return life.actors;
    },
    renew: () => {
      renewals++;
      return life.renew();
    },
  };
  const hints = new HintStore(engine, { hintsMax: 100, hintBytesMax: 1 << 20, sync: false, now: Date.now });
  await hints.open();
  const peers = new PeerDirectory(
    'n0',
    () => {
      throw new Error('a single node has no peers');
    },
    50,
    Date.now,
    log,
  );
  const coordinator = new Coordinator({
    self: 'n0',
    settings: {
      n: 1,
      r: 1,
      w: 1,
      valueBytesMax: 1 << 20,
      vvEntriesMax: 10,
      requestTimeoutMs: 2_000,
      peerTimeoutMs: 1_000,
    },
    ring: () => createRing(8, 'n0'),
    store: new ReplicaStore(engine, { partitionCount: 8, sync: false }),
    hints,
    peers,
    now: Date.now,
    incarnation,
    log,
  });
  return { coordinator, life, renewals: () => renewals };
}

const value = (text: string) => new TextEncoder().encode(JSON.stringify(text));

describe('a failed local write renews the incarnation', () => {
  it('once for a group of changes that failed together, and again for a later failure', async () => {
    const failing = { on: false };
    const node = await singleNode(failing);
    await node.coordinator.write('k', { value: value('stored') });
    const first = node.life.tag;
    failing.on = true;
    // Submitted in one turn: one group of changes of the key, one failed batch.
    const results = await Promise.allSettled(
      ['a', 'b', 'c'].map((v) => node.coordinator.write('k', { value: value(v) })),
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(node.renewals()).toBe(1);
    expect(node.life.tag).not.toBe(first);
    const second = node.life.tag;
    const again = await Promise.allSettled([node.coordinator.write('k', { value: value('d') })]);
    expect(again[0]?.status).toBe('rejected');
    expect(node.renewals()).toBe(2);
    expect(node.life.tag).not.toBe(second);
    // Once the disk takes writes again, the key is written under the newest incarnation's actor.
    failing.on = false;
    await node.coordinator.write('k', { value: value('e') });
    const { state } = await node.coordinator.get('k');
    expect(state.vv.some((e) => node.life.actors.owns(e.node))).toBe(true);
  });
});
