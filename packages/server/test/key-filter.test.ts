/**
 * The filter of stored keys (storage/key-filter.ts) on real node processes: a write of a fresh key
 * and a get of a missing one skip LevelDB's read, and a node restarted on its data dir knows every
 * key it stored before, so a blind write after the restart still becomes a sibling of the stored
 * value on that node instead of replacing it; a filter past its bound stops answering and the node
 * logs why, once.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFile,
  http,
  kvPath,
  localValues,
  restartNode,
  startCluster,
  type TestCluster,
  waitFor,
} from './helpers.js';

interface KeyFilterView {
  answering: boolean;
  saturated: boolean;
  keys: number;
  bytes: number;
  bytesMax: number;
  readsSkipped: number;
}

const FILTER_BYTES_MAX = 16 * 1024 * 1024;
let cluster: TestCluster;
const url = (i: number): string => cluster.nodes[i]!.url;
const keyFilter = async (i: number): Promise<KeyFilterView> =>
  (await http(url(i), 'GET', '/v1/status')).body.keyFilter as unknown as KeyFilterView;

beforeAll(async () => {
  // No anti-entropy or handoff during the test: a replica that lost a version must show it.
  // keyFilterBytesMax not at its default: the config must reach the store.
  const config = await configFile({
    antiEntropyIntervalMs: 3_600_000,
    handoffIntervalMs: 600_000,
    keyFilterBytesMax: FILTER_BYTES_MAX,
  });
  cluster = await startCluster(3, ['--config', config]);
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

async function put(i: number, key: string, value: unknown): Promise<void> {
  const res = await http(url(i), 'PUT', kvPath(key), { json: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('key filter', () => {
  it('answers writes of fresh keys and gets of missing ones from memory', async () => {
    const before = await keyFilter(1);
    expect(before).toMatchObject({ answering: true, saturated: false, bytesMax: FILTER_BYTES_MAX });
    for (let i = 0; i < 20; i++) await put(0, `fresh/${i}`, i);
    expect((await http(url(1), 'GET', kvPath('never/written'))).status).toBe(404);
    const after = await keyFilter(1);
    // n1 replicates every key (N=3): each fresh key's merge, and the get's read if it asked n1.
    expect(after.readsSkipped - before.readsSkipped).toBeGreaterThanOrEqual(20);
    expect(after.keys - before.keys).toBeGreaterThanOrEqual(19); // one may have seemed held: 0.1%
    const metrics = String((await http(url(1), 'GET', '/metrics')).body.text);
    expect(metrics).toMatch(/^tessera_key_filter_ready 1$/m);
    expect(metrics).toMatch(/^tessera_key_filter_reads_skipped_total \d+$/m);
  });

  it('knows the keys a node stored before it restarted: a blind write after it keeps the old value', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `kept/${i}`);
    for (const key of keys) await put(0, key, 'before');
    for (const key of keys) {
      await waitFor(async () => (await localValues(url(1), key)) !== undefined, 5_000, `n1 holds ${key}`);
    }
    await restartNode(cluster, 1);
    await waitFor(async () => (await keyFilter(1)).answering, 10_000, "n1's key filter answers");
    expect((await keyFilter(1)).keys).toBeGreaterThanOrEqual(keys.length - 1);
    for (const key of keys) {
      await put(1, key, 'after'); // no context: concurrent with 'before', n1 coordinates
      expect(((await localValues(url(1), key)) ?? []).sort(), key).toEqual(['after', 'before']);
    }
  });

  it('past its bound it stops answering, and the node says so once in its log, with what to raise', async () => {
    // n2 holds the keys written above; 1,000 bytes cannot hold even the filter's first layer.
    const small = await configFile({
      antiEntropyIntervalMs: 3_600_000,
      handoffIntervalMs: 600_000,
      keyFilterBytesMax: 1_000,
    });
    const node = await restartNode(cluster, 2, { extraArgs: ['--config', small] });
    await waitFor(async () => (await keyFilter(2)).saturated, 10_000, "n2's key filter saturates");
    expect(await keyFilter(2)).toMatchObject({ answering: false, bytesMax: 1_000 });
    const warnings = async (): Promise<string[]> =>
      (await readFile(node.logPath, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('The key filter needs more than'));
    await waitFor(async () => (await warnings()).length > 0, 5_000, "n2's log has the warning");
    await put(2, 'after/saturation', 1); // a write through n2 after it: no second warning
    const logged = await warnings();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      /"component":"store".*keyFilterBytesMax \(1000 bytes\).*Raise keyFilterBytesMax/,
    );
  });
});
