/**
 * `POST /v1/admin/join` (what `tessera admin join` calls): a node running alone in a fresh cluster
 * of its own joins another cluster through a seed; a node that already holds data is refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  kvPath,
  localValues,
  startCluster,
  type TestCluster,
  waitForSettledRing,
} from './helpers.js';

let cluster: TestCluster;
let loner: LocalNode | undefined;

beforeAll(async () => {
  cluster = await startCluster(2, ['--n', '2', '--r', '1', '--w', '1']);
}, 90_000);

afterAll(async () => {
  await loner?.kill();
  await cluster?.destroy();
});

async function startLoner(nodeId: string, args: string[]): Promise<LocalNode> {
  const port = await freePortBlock(2);
  const node = new LocalNode(
    {
      nodeId,
      host: '127.0.0.1',
      httpPort: port,
      peerPort: port + 1,
      dataDir: join(cluster.dir, nodeId),
      seeds: [],
      extraArgs: ['--log-level', 'warn', '--n', '2', '--r', '1', '--w', '1', ...args],
    },
    DIST_CLI,
  );
  await node.start();
  return node;
}

describe('admin join', () => {
  it('moves a lone node with no data into another cluster, which then places keys on it', async () => {
    const args = ['--config', await configFile({ transferStartDelayMs: 200, transferIntervalMs: 100 })];
    loner = await startLoner('n9', args);
    const seed = cluster.nodes[0]!.peerAddress;
    const joined = await http(loner.url, 'POST', '/v1/admin/join', { json: { seed } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    await waitForSettledRing([...cluster.nodes, loner], 3, 30_000);
    const status = await http(cluster.nodes[1]!.url, 'GET', '/v1/status');
    expect((status.body.members as { nodeId: string }[]).map((m) => m.nodeId).sort()).toEqual([
      'n0',
      'n1',
      'n9',
    ]);
    expect((status.body.ring as { owners: string[] }).owners).toContain('n9');
    // A key whose replicas include n9 lands on it.
    let placed = false;
    for (let i = 0; i < 200 && !placed; i++) {
      const key = `after-join-${i}`;
      const replicas = (
        (await http(loner.url, 'GET', `/v1/preference-list/${key}`)).body.nodes as string[]
      ).slice(0, 2);
      if (!replicas.includes('n9')) continue;
      expect(
        (await http(cluster.nodes[0]!.url, 'PUT', kvPath(key, '?w=2'), { json: { value: i } })).status,
      ).toBe(200);
      expect(await localValues(loner.url, key)).toEqual([i]);
      placed = true;
    }
    expect(placed).toBe(true);
  }, 60_000);

  it('refuses to move a node that already belongs to a cluster with other members', async () => {
    const res = await http(cluster.nodes[1]!.url, 'POST', '/v1/admin/join', {
      json: { seed: cluster.nodes[0]!.peerAddress },
    });
    expect(res.status).toBe(409);
    expect((res.body.error as { code: string }).code).toBe('JOIN_REFUSED');
    expect(
      (await http(cluster.nodes[1]!.url, 'PUT', kvPath('still-fine'), { json: { value: 1 } })).status,
    ).toBe(200);
  });
});
