import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../src/cli/local-cluster.js';
import { LAYOUT_KEY } from '../src/storage/layout.js';
import { LevelEngine } from '../src/storage/level-engine.js';
import {
  cli,
  configFile,
  DIST_CLI,
  freePortBlock,
  http,
  kvPath,
  type SiblingBody,
  startCluster,
  type TestCluster,
  waitFor,
  waitForSettledRing,
} from './helpers.js';

const KEYS_BEFORE = 150;
let cluster: TestCluster;
let root: string;
let config: string;
let restored: LocalNode[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tessera-snapshot-'));
  config = await configFile({ gossipIntervalMs: 200, seedGossipIntervalMs: 200, peerRetryMs: 300 });
  cluster = await startCluster(3, ['--config', config]);
}, 30_000);

afterAll(async () => {
  await Promise.all(restored.map((n) => n.kill()));
  await cluster?.destroy();
  await rm(root, { recursive: true, force: true });
});

async function put(base: string, key: string, value: unknown): Promise<boolean> {
  const res = await http(base, 'PUT', kvPath(key), { json: { value } });
  return res.status === 200;
}

describe('tessera admin snapshot and tessera restore', () => {
  it('refuses a snapshot into a directory that is not empty, and changes nothing in it', async () => {
    const busy = join(root, 'busy');
    await mkdir(busy);
    await writeFile(join(busy, 'keep.txt'), 'mine');
    const res = await http(cluster.nodes[0]!.url, 'POST', '/v1/admin/snapshot', { json: { dir: busy } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'DIR_NOT_EMPTY' });
    expect(await readdir(busy)).toEqual(['keep.txt']);
    const relative = await http(cluster.nodes[0]!.url, 'POST', '/v1/admin/snapshot', {
      json: { dir: 'rel' },
    });
    expect(relative.status).toBe(400);
  });

  it('restores a whole cluster onto new ports: every key acknowledged before the snapshots is read back', async () => {
    const urls = cluster.nodes.map((n) => n.url);
    const acked = new Map<string, string>();
    await Promise.all(
      Array.from({ length: KEYS_BEFORE }, async (_, i) => {
        const key = `before-${i}`;
        if (await put(urls[i % 3]!, key, `v${i}`)) acked.set(key, `v${i}`);
      }),
    );
    expect(acked.size).toBe(KEYS_BEFORE);
    // Writes keep going while the three snapshots run.
    let writing = true;
    let during = 0;
    const writer = (async () => {
      while (writing) {
        await put(urls[during % 3]!, `during-${during}`, during);
        during++;
      }
    })();
    const snaps = cluster.nodes.map((n) => join(root, `snap-${n.spec.nodeId}`));
    const runs = await Promise.all(
      cluster.nodes.map((n, i) => cli(['admin', 'snapshot', '--node', n.url, '--out', snaps[i]!, '--json'])),
    );
    writing = false;
    await writer;
    for (const run of runs) expect(run.code, run.out).toBe(0);
    expect(during).toBeGreaterThan(0);

    // New ports, taken while the old ones are still held so none is reused.
    const base = await freePortBlock(6);
    await Promise.all(cluster.nodes.map((n) => n.kill()));
    const peers = [0, 1, 2].map((i) => `127.0.0.1:${base + 3 + i}`);
    const specs = cluster.nodes.map((n, i) => ({
      nodeId: n.spec.nodeId,
      host: '127.0.0.1',
      httpPort: base + i,
      peerPort: base + 3 + i,
      dataDir: join(root, `restored-${n.spec.nodeId}`),
      seeds: peers.filter((p) => p !== peers[i]),
      extraArgs: ['--log-level', 'warn', '--config', config],
    }));
    const restores = await Promise.all(
      specs.map((spec, i) => cli(['restore', '--from', snaps[i]!, '--data-dir', spec.dataDir])),
    );
    for (const [i, run] of restores.entries()) {
      expect(run.code, run.out).toBe(0);
      expect(run.out).toContain(`restored node ${specs[i]!.nodeId}`);
    }
    restored = specs.map((s) => new LocalNode(s, DIST_CLI));
    await Promise.all(restored.map((n) => n.start()));
    await waitForSettledRing(restored, 3, 10_000);
    const want = JSON.stringify(specs.map((s) => `127.0.0.1:${s.httpPort}`).sort());
    await waitFor(
      async () => {
        const views = await Promise.all(restored.map((n) => http(n.url, 'GET', '/v1/status')));
        const addresses = views.map((v) =>
          JSON.stringify((v.body.members as { http: string }[]).map((m) => m.http).sort()),
        );
        return addresses.every((a) => a === want);
      },
      10_000,
      'every restored node knows every other one at its new address',
    );
    const missing: string[] = [];
    await Promise.all(
      [...acked].map(async ([key, value], i) => {
        const res = await http(restored[i % 3]!.url, 'GET', kvPath(key));
        const values = (res.body as unknown as SiblingBody).siblings?.map((s) => s.value);
        if (res.status !== 200 || !values?.includes(value)) missing.push(`${key}: ${res.status}`);
      }),
    );
    expect(missing).toEqual([]);
  }, 45_000);

  it('a data dir in a newer on-disk format refuses to start, saying so', async () => {
    const dataDir = join(root, 'from-the-future');
    const engine = new LevelEngine(join(dataDir, 'db'));
    await engine.open();
    await engine.batch([{ type: 'put', ns: 'meta', key: LAYOUT_KEY, value: new TextEncoder().encode('99') }]);
    await engine.close();
    const [p1, p2] = [await freePortBlock(2)].map((b) => [b, b + 1])[0]!;
    const run = await cli([
      'start',
      '--node-id',
      'n9',
      '--http',
      `127.0.0.1:${p1}`,
      '--peer',
      `127.0.0.1:${p2}`,
      '--data-dir',
      dataDir,
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('DATA_FORMAT_TOO_NEW');
    expect(run.out).toContain('on-disk format 99, written by a newer Tessera');
  });
});
