/**
 * What an operator sees and triggers, over three real node processes (N=2, so a key has a
 * fallback that keeps hints): `admin status` shows keys, bytes and hints per node; `admin repair`
 * brings back a replica that missed writes, with no client read; `admin drain` refuses clients,
 * hands the node's hints to their owner, and the process exits 0. Background anti-entropy and
 * handoff are slowed to an hour so that only the commands under test repair anything.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalNode } from '../src/cli/local-cluster.js';
import { STATE_CACHE_BYTES_DEFAULT } from '../src/storage/stored-states.js';
import {
  configFile,
  DIST_CLI,
  healNetwork,
  http,
  kvPath,
  localValues,
  preferenceList,
  splitNetwork,
  startCluster,
  type TestCluster,
  waitFor,
} from './helpers.js';

const run = promisify(execFile);

let cluster: TestCluster;
let a: LocalNode;
let v: LocalNode;
let c: LocalNode;

beforeAll(async () => {
  const config = await configFile({
    antiEntropyIntervalMs: 3_600_000,
    handoffIntervalMs: 600_000,
    peerRetryMs: 300,
    gossipIntervalMs: 200,
  });
  cluster = await startCluster(3, [
    '--n',
    '2',
    '--r',
    '1',
    '--w',
    '2',
    '--fault-injection',
    '--config',
    config,
  ]);
  [a, v, c] = cluster.nodes as [LocalNode, LocalNode, LocalNode];
}, 30_000);

afterAll(async () => {
  await cluster?.destroy();
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [DIST_CLI, 'admin', ...args], { timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `count` keys whose preference list starts with two of `firsts` (any order) and then `third`. */
async function keysPlaced(
  prefix: string,
  firsts: LocalNode[],
  third: LocalNode,
  count: number,
): Promise<string[]> {
  const want = new Set(firsts.map((n) => n.spec.nodeId));
  const keys: string[] = [];
  for (let i = 0; keys.length < count && i < 500; i++) {
    const key = `${prefix}-${i}`;
    const prefs = await preferenceList(a.url, key);
    if (want.has(prefs[0]!) && want.has(prefs[1]!) && prefs[2] === third.spec.nodeId) keys.push(key);
  }
  expect(keys.length).toBe(count);
  return keys;
}

/** Writes `keys` through `a` while `v` is cut off from the others: `v` misses them. */
async function writeWhileCutOff(keys: readonly string[]): Promise<void> {
  await splitNetwork([v], [a, c]);
  for (const key of keys) {
    const put = await http(a.url, 'PUT', kvPath(key), { json: { value: key } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  }
  await healNetwork([a, v, c]);
}

interface Status {
  stored: { keys: number; bytes: number; partitionsCounted: number; partitionCount: number };
  hintsHeld: { count: number };
  stateCache: { hitRatio: number | null; hits: number; evictions: number; bytes: number; bytesMax: number };
}

const ownStatus = async (node: LocalNode): Promise<Status> =>
  (await http(node.url, 'GET', '/v1/status')).body as unknown as Status;

describe('admin repair', () => {
  it('brings back a replica that missed writes, without a client read', async () => {
    const keys = await keysPlaced('repair', [a, v], c, 4);
    await writeWhileCutOff(keys);
    for (const key of keys) expect(await localValues(v.url, key)).toBeUndefined();

    const out = await cli('repair', '--node', v.url);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/repair: \d+ partition\(s\)/);
    for (const key of keys) expect(await localValues(v.url, key)).toEqual([key]);
  });

  it('refuses a partition that does not exist, with a clear 400', async () => {
    const res = await http(v.url, 'POST', '/v1/admin/repair', { json: { partition: 9999 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('0 to 63');
    const out = await cli('repair', '--node', v.url, '--partition', '9999');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('BAD_REQUEST: Partition 9999 does not exist');
  });
});

describe('state cache', () => {
  it('answers repeated gets of a key from memory, as /v1/status and /metrics show', async () => {
    const cache = async () => {
      const all = await Promise.all([a, v, c].map(async (n) => (await ownStatus(n)).stateCache));
      return { hits: all.reduce((sum, s) => sum + s.hits, 0), all };
    };
    const put = await http(a.url, 'PUT', kvPath('cache/hot'), { json: { value: 1 } });
    expect(put.status).toBe(200);
    const before = await cache();
    // The second get fills the cache on the replicas it reads (a write alone does not, nor a key's
    // first read: doorkeeper.ts); the later ones hit.
    for (let i = 0; i < 5; i++) expect((await http(a.url, 'GET', kvPath('cache/hot'))).status).toBe(200);
    const after = await cache();
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(3);
    for (const s of after.all) {
      expect(s.bytes).toBeLessThanOrEqual(s.bytesMax);
      if (s.hitRatio !== null) expect(s.hitRatio).toBeGreaterThanOrEqual(0);
      expect(s.evictions).toBe(0); // one key in an 8 MiB cache
    }
    const metrics = String((await http(v.url, 'GET', '/metrics')).body.text);
    expect(metrics).toMatch(/^tessera_state_cache_hits_total \d+$/m);
    expect(metrics).toMatch(new RegExp(`^tessera_state_cache_bytes_max ${STATE_CACHE_BYTES_DEFAULT}$`, 'm'));
  });
});

describe('admin status and admin drain', () => {
  it('shows keys, bytes and hints per node; a drained node hands its hints to their owner and exits 0', async () => {
    const keys = await keysPlaced('drain', [a, v], c, 4);
    await writeWhileCutOff(keys);
    for (const key of keys) expect(await localValues(v.url, key)).toBeUndefined();

    // Status: c holds hints for v; every node counted what it stores.
    await waitFor(
      async () => {
        const all = await Promise.all([a, v, c].map(ownStatus));
        return all.every((s) => s.stored.partitionsCounted === s.stored.partitionCount);
      },
      5_000,
      'every node counted its partitions',
    );
    expect((await ownStatus(c)).hintsHeld.count).toBeGreaterThanOrEqual(keys.length);
    expect((await ownStatus(a)).stored.keys).toBeGreaterThanOrEqual(keys.length);
    const shown = await cli('status', '--node', a.url);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/NODE\s+KEYS\s+TOMBSTONES\s+BYTES\s+HINTS/);
    const row = (node: LocalNode): RegExpExecArray | null =>
      new RegExp(`^${node.spec.nodeId}\\s+(\\d+)\\s+\\d+\\s+[\\d.]+ \\S+\\s+(\\d+) \\(`, 'm').exec(
        shown.stdout,
      );
    expect(row(a), shown.stdout).not.toBeNull();
    expect(Number(row(a)![1])).toBeGreaterThanOrEqual(keys.length);
    expect(Number(row(c)![2])).toBeGreaterThanOrEqual(keys.length);

    // Drain c: clients are refused, /health says draining, hints reach v, c exits 0.
    const drained = cli('drain', '--node', c.url, '--timeout-ms', '10000');
    await waitFor(
      async () => (await http(c.url, 'GET', '/health')).status === 503,
      5_000,
      'c reports draining',
    );
    const refused = await http(c.url, 'GET', kvPath(keys[0]!));
    expect(refused.status).toBe(503);
    expect((refused.body.error as { code: string }).code).toBe('NODE_DRAINING');
    const out = await drained;
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(out.stdout).toContain('drained: the node has exited');
    await waitFor(() => !c.running, 5_000, 'c exited');
    expect(c.exitCode).toBe(0);
    for (const key of keys) expect(await localValues(v.url, key)).toEqual([key]);

    // The drained node is gone: status says so instead of failing.
    const after = await cli('status', '--node', a.url);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(new RegExp(`^${c.spec.nodeId}\\s+unreachable`, 'm'));
  });
});
