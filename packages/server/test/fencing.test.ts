/**
 * Identity fencing (issue 16, item 3; docs/operations.md, "Identity fencing"), with real node
 * processes: a removed node's old data dir, started again while its replacement runs under its
 * id, is refused by its peers and serves nothing; a node that left and is started again on its old
 * data dir serves nothing; a data dir of another cluster started with a seed of this one refuses
 * to start, naming both clusters.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  kvPath,
  restartNode,
  startCluster,
  status,
  type TestCluster,
  waitFor,
} from './helpers.js';

const SETTINGS = {
  gossipIntervalMs: 200,
  peerRetryMs: 300,
  transferIntervalMs: 50,
  transferStartDelayMs: 0,
  retireDelayMs: 0,
  seedGossipIntervalMs: 500,
};
let cluster: TestCluster;
let config: string;
const spare: LocalNode[] = [];

interface FencedStatus {
  clusterId: string;
  fenced: { reason: string; message: string; learnedFrom: string } | null;
  departure: { phase: string } | null;
  members: { nodeId: string; peer: string }[];
}

const fullStatus = async (url: string): Promise<FencedStatus> =>
  (await http(url, 'GET', '/v1/status')).body as unknown as FencedStatus;

beforeAll(async () => {
  config = await configFile(SETTINGS);
  cluster = await startCluster(3, ['--partitions', '8', '--config', config]);
}, 30_000);

afterAll(async () => {
  await Promise.all(spare.map((n) => n.kill()));
  await cluster?.destroy();
});

/** A node process on `dataDir` under `nodeId`, on fresh ports. */
async function nodeOn(nodeId: string, dataDir: string, seeds: string[]): Promise<LocalNode> {
  const base = await freePortBlock(2);
  const node = new LocalNode(
    {
      nodeId,
      host: '127.0.0.1',
      httpPort: base,
      peerPort: base + 1,
      dataDir,
      seeds,
      extraArgs: ['--log-level', 'warn', '--partitions', '8', '--config', config],
    },
    DIST_CLI,
  );
  spare.push(node);
  return node;
}

/** A write through `url` is refused with NODE_FENCED, saying to start on an empty data dir. */
async function expectRefusesClients(url: string): Promise<void> {
  const put = await http(url, 'PUT', kvPath('fenced-key'), { json: { value: 1 } });
  expect(put.status).toBe(503);
  expect(put.body).toMatchObject({ error: { code: 'NODE_FENCED' } });
  expect(JSON.stringify(put.body)).toMatch(/empty --data-dir/);
}

describe('identity fencing', () => {
  it('a data dir of another cluster started with a seed of this one refuses to start, naming both', async () => {
    const other = await nodeOn('x0', join(cluster.dir, 'x0'), []);
    await other.start();
    const otherCluster = (await status(other.url)) as unknown as { clusterId: string };
    await other.stop();
    const ours = (await fullStatus(cluster.nodes[0]!.url)).clusterId;
    const again = await nodeOn('x0', other.spec.dataDir, [cluster.nodes[0]!.peerAddress]);
    const start = again.start();
    await expect(start).rejects.toThrow(/CLUSTER_MISMATCH/);
    const message = String(await start.catch((e: unknown) => e));
    expect(message).toContain(`belongs to cluster ${otherCluster.clusterId}`);
    expect(message).toContain(ours);
    expect(message).toMatch(/empty --data-dir/);
  }, 15_000);

  it('a node that left, started again on its old data dir, serves nothing', async () => {
    const leaver = cluster.nodes[1]!;
    const res = await http(leaver.url, 'POST', '/v1/admin/leave');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await waitFor(
      async () => (await fullStatus(leaver.url)).departure?.phase === 'left',
      15_000,
      'n1 has handed everything over and left',
    );
    // In the life that left, the node is not fenced: it answers NODE_LEFT, naming members.
    expect((await fullStatus(leaver.url)).fenced).toBeNull();
    const restarted = await restartNode(cluster, 1, { clean: true });
    const seen = await fullStatus(restarted.url);
    expect(seen.fenced).toMatchObject({ reason: 'left' });
    await expectRefusesClients(restarted.url);
  }, 20_000);

  it("a removed node's old data dir, started while its replacement runs, is refused by peers and serves nothing", async () => {
    const n0 = cluster.nodes[0]!;
    const old = cluster.nodes[2]!;
    await old.kill();
    const copy = join(cluster.dir, 'n2-old');
    await cp(old.spec.dataDir, copy, { recursive: true });
    const removed = await http(n0.url, 'POST', '/v1/admin/remove', { json: { nodeId: 'n2' } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    // The replacement: the same id and addresses, an empty data dir, admitted through n0.
    const replacement = await restartNode(cluster, 2, { wipe: true, seeds: [n0.peerAddress] });
    const stale = await nodeOn('n2', copy, []);
    await stale.start();
    await waitFor(
      async () => (await fullStatus(stale.url)).fenced !== null,
      10_000,
      'the old data dir learns it is fenced',
    );
    const seen = await fullStatus(stale.url);
    expect(seen.fenced).toMatchObject({ reason: 'superseded' });
    expect(seen.fenced?.learnedFrom).toMatch(/refusal from peer|own view/);
    await expectRefusesClients(stale.url);
    // The members still know n2 at the replacement's address, not the old data dir's.
    const members = (await fullStatus(n0.url)).members;
    expect(members.find((m) => m.nodeId === 'n2')?.peer).toBe(replacement.peerAddress);
    expect(members.map((m) => m.peer)).not.toContain(stale.peerAddress);
  }, 20_000);
});
