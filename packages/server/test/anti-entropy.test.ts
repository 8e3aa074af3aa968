/**
 * Anti-entropy over three real node processes: a replica that missed writes while it was down —
 * with no hint (three nodes leave no fallback) and no client read to repair it — converges on its
 * own; and a delete it missed does not bring the value back when it returns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile, http, kvPath, localValues, startCluster, type TestCluster, waitFor } from './helpers.js';

let cluster: TestCluster;

beforeAll(async () => {
  const config = await configFile({ antiEntropyIntervalMs: 200, peerRetryMs: 300, gossipIntervalMs: 200 });
  cluster = await startCluster(3, ['--config', config]);
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('anti-entropy', () => {
  it('brings a replica that missed 400 writes up to date without any client read', async () => {
    const [n0, n1, n2] = cluster.nodes;
    await n2!.kill();
    const keys = Array.from({ length: 400 }, (_, i) => `ae-${i}`);
    for (let i = 0; i < keys.length; i += 20) {
      await Promise.all(
        keys.slice(i, i + 20).map(async (key) => {
          const res = await http(i % 40 === 0 ? n0!.url : n1!.url, 'PUT', kvPath(key), {
            json: { value: key },
          });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }),
      );
    }
    await n2!.start();
    await waitFor(
      async () => {
        for (const key of keys)
          if (JSON.stringify(await localValues(n2!.url, key)) !== JSON.stringify([key])) return false;
        return true;
      },
      60_000,
      'the restarted replica holds all 400 keys',
    );
    const status = await http(n2!.url, 'GET', '/v1/status/repair');
    expect(JSON.stringify(status.body.antiEntropy)).toMatch(/"keysRepaired|"pulled|"repaired/);
  }, 120_000);

  it('does not bring back a value deleted while a replica was down', async () => {
    const [n0, n1, n2] = cluster.nodes;
    const key = 'deleted-while-away';
    expect((await http(n0!.url, 'PUT', kvPath(key), { json: { value: 'doomed' } })).status).toBe(200);
    await waitFor(
      async () => JSON.stringify(await localValues(n2!.url, key)) === '["doomed"]',
      20_000,
      'n2 holds the value',
    );
    await n2!.kill();
    const read = await http(n0!.url, 'GET', kvPath(key));
    expect(
      (await http(n1!.url, 'DELETE', kvPath(key), { json: { context: read.body.context } })).status,
    ).toBe(200);
    await n2!.start();
    // n2 still holds the old value; anti-entropy must carry the tombstone to it, not the value back.
    await waitFor(
      async () => (await localValues(n2!.url, key)) === undefined,
      30_000,
      'n2 learned of the delete',
    );
    for (const node of [n0!, n1!, n2!]) {
      expect(await localValues(node.url, key)).toBeUndefined();
      expect((await http(node.url, 'GET', kvPath(key, '?r=3'))).status).toBe(404);
    }
  }, 90_000);
});
