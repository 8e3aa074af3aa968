/**
 * Black-box tests of membership changes with data (paper 4.8, 4.9): real `tessera start`
 * processes grow from 3 to 5 nodes and shrink again, a receiver is killed mid-transfer, and two
 * nodes joining through different members end up in one ring.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  kvPath,
  localValues,
  preferenceList,
  type StatusBody,
  startCluster,
  status,
  type TestCluster,
  waitFor,
  waitForSettledRing,
} from './helpers.js';

const N = 3;
let cluster: TestCluster | undefined;
const extra: LocalNode[] = [];

afterEach(async () => {
  await Promise.all(extra.splice(0).map((n) => n.kill()));
  await cluster?.destroy();
  cluster = undefined;
});

async function addNode(c: TestCluster, nodeId: string, seed: LocalNode, args: string[]): Promise<LocalNode> {
  const httpPort = await freePortBlock(2);
  const peerPort = httpPort + 1;
  const node = new LocalNode(
    {
      nodeId,
      host: '127.0.0.1',
      httpPort,
      peerPort,
      dataDir: join(c.dir, nodeId),
      seeds: [seed.peerAddress],
      extraArgs: ['--log-level', 'warn', ...args],
    },
    DIST_CLI,
  );
  extra.push(node);
  await node.start();
  return node;
}

async function inParallel<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

const keyOf = (i: number): string => `member-key-${i}`;

async function writeKeys(nodes: readonly LocalNode[], count: number): Promise<void> {
  await inParallel([...Array(count).keys()], 32, async (i) => {
    const res = await http(nodes[i % nodes.length]!.url, 'PUT', kvPath(keyOf(i)), { json: { value: { i } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
}

/** Every key is readable through the coordinator and stored on each of its first N preference nodes. */
async function expectPlaced(nodes: readonly LocalNode[], count: number): Promise<void> {
  const urls = new Map<string, string>();
  for (const n of nodes) urls.set(n.spec.nodeId, n.url);
  const missing: string[] = [];
  await inParallel([...Array(count).keys()], 32, async (i) => {
    const key = keyOf(i);
    const via = nodes[i % nodes.length]!.url;
    const read = await http(via, 'GET', kvPath(key));
    if (read.status !== 200) missing.push(`${key}: GET ${read.status}`);
    for (const owner of (await preferenceList(via, key)).slice(0, N)) {
      const values = await localValues(urls.get(owner)!, key);
      if (JSON.stringify(values) !== JSON.stringify([{ i }]))
        missing.push(`${key} on ${owner}: ${JSON.stringify(values)}`);
    }
  });
  expect(missing.slice(0, 10)).toEqual([]);
}

function expectBalanced(s: StatusBody, members: number): void {
  const counts = s.members.map((m) => m.partitions);
  expect(counts).toHaveLength(members);
  expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  expect(counts.reduce((a, b) => a + b, 0)).toBe(64);
}

/** Reads random keys until stopped; collects every failed read. */
function keepReading(nodes: () => readonly LocalNode[], count: number): { stop: () => Promise<string[]> } {
  const failures: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let round = 0; running; round++) {
      const alive = nodes();
      const i = Math.floor(Math.random() * count);
      const res = await http(alive[round % alive.length]!.url, 'GET', kvPath(keyOf(i)));
      if (res.status !== 200) failures.push(`${keyOf(i)}: ${res.status}`);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return failures;
    },
  };
}

const FAST = { transferStartDelayMs: 300, transferIntervalMs: 100, retireDelayMs: 300 };

/** Nodes that are no replica of a key drop their copy once the new ring has held (sampled keys). */
async function expectRetired(nodes: readonly LocalNode[], count: number): Promise<void> {
  await waitFor(
    async () => {
      for (let i = 0; i < count; i += 25) {
        const owners = (await preferenceList(nodes[0]!.url, keyOf(i))).slice(0, N);
        for (const n of nodes) {
          if (!owners.includes(n.spec.nodeId) && (await localValues(n.url, keyOf(i))) !== undefined)
            return false;
        }
      }
      return true;
    },
    20_000,
    'nodes that gave partitions away dropped their copies',
  );
}

/**
 * Three ring changes with transfers and a dead node's re-replication, on real processes: 40-60 s
 * on a quiet machine, 87-90 s in CI runs on this VM's slowest day (it timed out at 90 s once).
 */
const GROW_SHRINK_TIMEOUT_MS = 180_000;

describe('membership changes with partition transfer', () => {
  it(
    'grows 3 -> 5 one node at a time, shrinks by a leave, and re-replicates a removed dead node',
    async () => {
      const args = ['--config', await configFile(FAST)];
      cluster = await startCluster(3, args);
      const c = cluster;
      const KEYS = 1_500;
      await writeKeys(c.nodes, KEYS);
      let live: LocalNode[] = [...c.nodes];
      const reader = keepReading(() => live, KEYS);

      live = [...live, await addNode(c, 'n3', c.nodes[0]!, args)];
      await waitForSettledRing(live, 4, 30_000);
      live = [...live, await addNode(c, 'n4', c.nodes[1]!, args)];
      await waitForSettledRing(live, 5, 30_000);
      expect(await reader.stop()).toEqual([]);
      await expectPlaced(live, KEYS);
      await expectRetired(live, KEYS);
      expectBalanced(await status(live[0]!.url), 5);
      const history = (await status(live[0]!.url)) as StatusBody & {
        history: { kind: string; nodeId: string }[];
      };
      expect(history.history.filter((h) => h.kind === 'join').map((h) => h.nodeId)).toEqual(
        expect.arrayContaining(['n3', 'n4']),
      );

      // A leave: n1 hands its partitions over and leaves.
      const reader2 = keepReading(() => live, KEYS);
      expect((await http(c.nodes[1]!.url, 'POST', '/v1/admin/leave', { json: {} })).status).toBe(200);
      live = live.filter((n) => n.spec.nodeId !== 'n1');
      await waitForSettledRing(live, 4, 30_000);
      expect(await reader2.stop()).toEqual([]);
      await expectPlaced(live, KEYS);
      expectBalanced(await status(live[0]!.url), 4);

      // A dead node is removed only when told; its partitions are re-replicated to N copies.
      await c.nodes[2]!.kill();
      live = live.filter((n) => n.spec.nodeId !== 'n2');
      const before = await status(live[0]!.url);
      expect(before.ring.owners).toContain('n2'); // an outage moves nothing
      expect((await http(live[0]!.url, 'POST', '/v1/admin/remove', { json: { nodeId: 'n2' } })).status).toBe(
        200,
      );
      await waitForSettledRing(live, 3, 30_000);
      await expectPlaced(live, KEYS);
      expectBalanced(await status(live[0]!.url), 3);
    },
    GROW_SHRINK_TIMEOUT_MS,
  );

  it('resumes a transfer whose receiver was killed mid-partition, losing nothing', async () => {
    const slow = { ...FAST, transferPageKeys: 4, backgroundRateMaxPerSec: 80, backgroundRateMinPerSec: 40 };
    const args = ['--config', await configFile(slow)];
    cluster = await startCluster(3, args);
    const c = cluster;
    const KEYS = 400;
    await writeKeys(c.nodes, KEYS);
    const n3 = await addNode(c, 'n3', c.nodes[0]!, args);
    await waitFor(
      async () =>
        (await status(n3.url)).transfers.some((t) => t.to === 'n3' && t.keysSent > 0 && t.progress < 1),
      20_000,
      'n3 is receiving a partition',
    );
    await n3.kill();
    expect((await status(c.nodes[0]!.url)).pending).not.toBeNull();
    await n3.start();
    await waitForSettledRing([...c.nodes, n3], 4, 40_000);
    await expectPlaced([...c.nodes, n3], KEYS);
  }, 60_000);

  it('joins two nodes through different members into one ring', async () => {
    const args = ['--config', await configFile(FAST)];
    cluster = await startCluster(3, args);
    const c = cluster;
    const [a, b] = await Promise.all([
      addNode(c, 'n3', c.nodes[1]!, args),
      addNode(c, 'n4', c.nodes[2]!, args),
    ]);
    const all = [...c.nodes, a, b];
    await waitForSettledRing(all, 5, 30_000);
    const views = await Promise.all(all.map((n) => status(n.url)));
    expect(new Set(views.map((v) => `${v.ringVersion}|${v.ring.owners.join(',')}`)).size).toBe(1);
    expectBalanced(views[0]!, 5);
  }, 45_000);
});
