/**
 * A leave made while the network is partitioned (found by the chaos suite): a write acknowledged
 * on the side that does not know about the change must survive the change and the leaver's
 * shutdown. Anti-entropy is off, so the handover of stray copies and hints is what must carry it.
 */
import { partitionOf, preferenceList as preferenceOf, type Ring, release, replicasOf } from '@tessera/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  configFile,
  http,
  kvPath,
  localValues,
  type SiblingBody,
  startCluster,
  status,
  type TestCluster,
  waitFor,
  waitForSettledRing,
} from './helpers.js';

const N = 3;
let cluster: TestCluster | undefined;

afterAll(async () => {
  await cluster?.destroy();
});

interface Scenario {
  readonly leaver: string;
  /** The node cut off from the others, which coordinates the write as a fallback. */
  readonly isolated: string;
  readonly key: string;
}

/**
 * A key whose first replica is the leaver, whose first fallback is the isolated node (so its hint
 * names the leaver), and that the isolated node replicates neither before nor after the leave.
 */
function scenario(ring: Ring, nodes: readonly string[]): Scenario {
  for (const leaver of nodes.slice(1)) {
    const next = release(ring, leaver, N);
    for (let i = 0; i < 10_000; i++) {
      const key = `leave-during-split-${i}`;
      const p = partitionOf(ring.partitionCount, key);
      const preference = preferenceOf(ring, p);
      const isolated = preference[N]!;
      if (preference[0] === leaver && !replicasOf(next, p, N).includes(isolated))
        return { leaver, isolated, key };
    }
  }
  throw new Error('no key fits the scenario');
}

describe('a leave during a network partition', () => {
  it('keeps a write the cut-off side acknowledged as a fallback, after the leaver is stopped', async () => {
    const settings = {
      transferStartDelayMs: 300,
      transferIntervalMs: 100,
      retireDelayMs: 300,
      handoffIntervalMs: 200,
      antiEntropyIntervalMs: 3_600_000,
    };
    cluster = await startCluster(5, ['--fault-injection', '--config', await configFile(settings)]);
    const byId = new Map(cluster.nodes.map((n) => [n.spec.nodeId, n]));
    const ids = [...byId.keys()];
    const before = await status(cluster.nodes[0]!.url);
    const ring = { ...before.ring, partitionCount: 64, version: before.ringVersion } as Ring;
    const { leaver, isolated, key } = scenario(ring, ids);
    const url = (id: string): string => byId.get(id)!.url;
    const others = ids.filter((id) => id !== isolated);

    // Split {isolated} | {the rest}; the leaver, on the big side, leaves.
    await http(url(isolated), 'POST', '/v1/admin/faults', { json: { blockPeers: others } });
    for (const id of others)
      await http(url(id), 'POST', '/v1/admin/faults', { json: { blockPeers: [isolated] } });
    expect((await http(url(leaver), 'POST', '/v1/admin/leave', { json: {} })).status).toBe(200);

    // The cut-off node does not know about the leave; it takes the write as a fallback (w=1).
    const put = await http(url(isolated), 'PUT', kvPath(key, '?w=1'), { json: { value: 'kept' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    // The big side pulls what it gains (without the write, which it cannot see), then the split heals.
    const observer = others.find((id) => id !== leaver)!;
    await waitFor(
      async () => {
        const s = (await status(url(observer))) as Awaited<ReturnType<typeof status>> & {
          pending: { receivers: string[]; done: string[] } | null;
        };
        if (s.pending === null) return s.ringVersion > before.ringVersion;
        return s.pending.receivers.filter((r) => r !== isolated).every((r) => s.pending!.done.includes(r));
      },
      20_000,
      'the big side received what it gains',
    );
    for (const id of ids) expect((await http(url(id), 'DELETE', '/v1/admin/faults')).status).toBe(200);

    // The change commits; the leaver is stopped as soon as it is gone from the ring.
    const stay = cluster.nodes.filter((n) => n.spec.nodeId !== leaver);
    await waitForSettledRing(stay, 4, 30_000);
    await byId.get(leaver)!.kill();

    const after = await status(url(isolated));
    const next = { ...after.ring, partitionCount: 64, version: after.ringVersion } as Ring;
    const owners = replicasOf(next, partitionOf(64, key), N);
    await waitFor(
      async () => {
        for (const owner of owners)
          if (JSON.stringify(await localValues(url(owner), key)) !== '["kept"]') return false;
        return true;
      },
      15_000,
      `every replica of ${key} (${owners.join(', ')}) holds the acknowledged write`,
    );
    const read = await http(url(owners[0]!), 'GET', kvPath(key, '?r=3'));
    expect((read.body as unknown as SiblingBody).siblings.map((s) => s.value)).toEqual(['kept']);
  }, 90_000);
});
