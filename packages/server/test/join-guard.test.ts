/**
 * A node must not leave a stuck ring change behind, nor run with other settings than its cluster
 * (issue 16, items 1 and 2): a start that cannot listen on its HTTP port fails before any seed
 * admits it; a joining node that dies after its admission, before confirming its partitions, is
 * dropped after `joinConfirmTimeoutMs`; a node with another N, R, W or Q, or a durability below the
 * cluster's floor, is refused, naming both values.
 */
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  startCluster,
  status,
  type TestCluster,
  waitFor,
  waitForSettledRing,
} from './helpers.js';

const SETTINGS = {
  // The cluster promises fsync-one: a member must not run with a weaker durability.
  durability: 'fsync-one',
  durabilityFloor: 'fsync-one',
  gossipIntervalMs: 200,
  peerRetryMs: 300,
  transferIntervalMs: 100,
  joinConfirmTimeoutMs: 2_000,
};
let cluster: TestCluster;
const spare: LocalNode[] = [];

beforeAll(async () => {
  cluster = await startCluster(3, ['--config', await configFile(SETTINGS)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(spare.map((n) => n.kill()));
  await cluster?.destroy();
});

async function joiner(
  nodeId: string,
  httpPort: number,
  peerPort: number,
  config: string,
): Promise<LocalNode> {
  const node = new LocalNode(
    {
      nodeId,
      host: '127.0.0.1',
      httpPort,
      peerPort,
      dataDir: join(cluster.dir, nodeId),
      seeds: [cluster.nodes[0]!.peerAddress],
      extraArgs: ['--log-level', 'warn', '--config', config],
    },
    DIST_CLI,
  );
  spare.push(node);
  return node;
}

describe('joining safely', () => {
  it('a node whose HTTP port is taken fails before it is admitted: no ring change is left behind', async () => {
    const base = await freePortBlock(2);
    // Another program holds the port: it takes connections and hangs up at once.
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(base, '127.0.0.1', resolve));
    try {
      const node = await joiner('n8', base, base + 1, await configFile(SETTINGS));
      await expect(node.start()).rejects.toThrow(/Cannot listen for HTTP/);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
    const seen = await status(cluster.nodes[0]!.url);
    expect(seen.members.map((m) => m.nodeId)).not.toContain('n8');
    expect(seen.pending).toBeNull();
  }, 30_000);

  it('a joiner killed before it confirmed is dropped after joinConfirmTimeoutMs, and the ring settles again', async () => {
    const base = await freePortBlock(2);
    // It waits a minute before pulling its partitions, so it cannot confirm before it is killed.
    const slow = await configFile({ ...SETTINGS, transferStartDelayMs: 60_000 });
    const node = await joiner('n9', base, base + 1, slow);
    await node.start();
    await waitFor(
      async () =>
        (await status(cluster.nodes[0]!.url)).members.some(
          (m) => m.nodeId === 'n9' && m.status === 'joining',
        ),
      10_000,
      'n9 is admitted as joining',
    );
    await node.kill();
    await waitForSettledRing(cluster.nodes, 3, 40_000);
    const seen = await status(cluster.nodes[0]!.url);
    expect(seen.ring.owners).not.toContain('n9');
    const metrics = await Promise.all(cluster.nodes.map((n) => http(n.url, 'GET', '/metrics')));
    const abandoned = metrics
      .map((m) => /tessera_joins_abandoned_total (\d+)/.exec(String(m.body.text))?.[1])
      .map((v) => Number(v ?? 0));
    expect(
      abandoned.reduce((a, b) => a + b, 0),
      'joins abandoned, summed over the nodes',
    ).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('a node with other N, R or W is refused before it is admitted, naming both values', async () => {
    const base = await freePortBlock(2);
    const node = await joiner('n7', base, base + 1, await configFile({ ...SETTINGS, n: 5, r: 1, w: 1 }));
    await expect(node.start()).rejects.toThrow(/n=3 in the cluster, n=5 on this node/);
    const seen = await status(cluster.nodes[0]!.url);
    expect(seen.members.map((m) => m.nodeId)).not.toContain('n7');
    expect(seen.pending).toBeNull();
  }, 30_000);

  it('a node with another partition count (Q) is refused before it is admitted, naming both values', async () => {
    const base = await freePortBlock(2);
    const node = await joiner('n6', base, base + 1, await configFile({ ...SETTINGS, partitions: 128 }));
    await expect(node.start()).rejects.toThrow(/partitions=64 in the cluster, partitions=128 on this node/);
    const seen = await status(cluster.nodes[0]!.url);
    expect(seen.members.map((m) => m.nodeId)).not.toContain('n6');
    expect(seen.pending).toBeNull();
  }, 30_000);

  it('a member restarted with another W, or a durability below the floor, refuses to start, naming both values', async () => {
    const member = cluster.nodes[2]!;
    await member.stop();
    const restartWith = async (...args: string[]): Promise<void> => {
      const restarted = new LocalNode(
        { ...member.spec, extraArgs: [...(member.spec.extraArgs ?? []), ...args] },
        DIST_CLI,
      );
      spare.push(restarted);
      await restarted.start();
    };
    await expect(restartWith('--w', '1')).rejects.toThrow(/w=2 in the cluster, w=1 on this node/);
    await expect(restartWith('--durability', 'process')).rejects.toThrow(
      /durabilityFloor=fsync-one in the cluster, durability=process on this node \(weaker\)/,
    );
    cluster.nodes[2] = new LocalNode(member.spec, DIST_CLI);
    await cluster.nodes[2].start();
  }, 30_000);
});
