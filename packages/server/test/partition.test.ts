/**
 * A network partition made with the fault-injection admin API: both sides keep accepting writes,
 * and after healing a read sees both versions as siblings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kvPath, type SiblingBody, startCluster, type TestCluster, waitFor } from './helpers.js';

let cluster: TestCluster;
const url = (i: number): string => cluster.nodes[i]!.url;

beforeAll(async () => {
  cluster = await startCluster(3, ['--fault-injection']);
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('a partitioned cluster', () => {
  it('takes writes on both sides and shows both as siblings once healed', async () => {
    await http(url(0), 'PUT', kvPath('split-cart'), { json: { value: ['book'] } });
    const seen = (await http(url(0), 'GET', kvPath('split-cart'))).body as unknown as SiblingBody;

    const split = [
      http(url(0), 'POST', '/v1/admin/faults', { json: { blockPeers: ['n1', 'n2'] } }),
      http(url(1), 'POST', '/v1/admin/faults', { json: { blockPeers: ['n0'] } }),
      http(url(2), 'POST', '/v1/admin/faults', { json: { blockPeers: ['n0'] } }),
    ];
    for (const res of await Promise.all(split)) expect(res.status).toBe(200);

    const minority = await http(url(0), 'PUT', kvPath('split-cart', '?w=1'), {
      json: { value: ['book', 'pen'], context: seen.context },
    });
    expect(minority.status, JSON.stringify(minority.body)).toBe(200);
    const majority = await http(url(1), 'PUT', kvPath('split-cart'), {
      json: { value: ['book', 'lamp'], context: seen.context },
    });
    expect(majority.status, JSON.stringify(majority.body)).toBe(200);
    const quorumRead = await http(url(0), 'GET', kvPath('split-cart'));
    expect(quorumRead.status).toBe(503);
    expect((quorumRead.body.error as { code: string }).code).toBe('INSUFFICIENT_REPLICAS');

    for (let i = 0; i < 3; i++) expect((await http(url(i), 'DELETE', '/v1/admin/faults')).status).toBe(200);
    await waitFor(
      async () => {
        const read = await http(url(2), 'GET', kvPath('split-cart', '?r=3'));
        const values = ((read.body as unknown as SiblingBody).siblings ?? [])
          .map((s) => JSON.stringify(s.value))
          .sort();
        return JSON.stringify(values) === JSON.stringify(['["book","lamp"]', '["book","pen"]']);
      },
      10_000,
      "a read after healing returns both sides' versions",
    );
  });

  it('answers 503 to a write that cannot reach W nodes while its own copy is still being written, and stays up', async () => {
    // Every peer refuses at once, so the quorum fails before the local LevelDB write has ended.
    expect(
      (await http(url(0), 'POST', '/v1/admin/faults', { json: { blockPeers: ['n1', 'n2'] } })).status,
    ).toBe(200);
    try {
      for (let i = 0; i < 5; i++) {
        const put = await http(url(0), 'PUT', kvPath(`cut-off-${i}`), { json: { value: i } });
        expect(put.status, JSON.stringify(put.body)).toBe(503);
      }
      expect((await http(url(0), 'GET', '/health')).status).toBe(200);
    } finally {
      await http(url(0), 'DELETE', '/v1/admin/faults');
    }
  });

  it('refuses fault injection on a node not started with --fault-injection', async () => {
    const plain = await startCluster(1, ['--n', '1', '--r', '1', '--w', '1', '--storage', 'memory']);
    try {
      const res = await http(plain.nodes[0]!.url, 'POST', '/v1/admin/faults', {
        json: { blockPeers: ['x'] },
      });
      expect(res.status).toBe(403);
      expect((res.body.error as { code: string }).code).toBe('FAULT_INJECTION_DISABLED');
    } finally {
      await plain.destroy();
    }
  }, 60_000);
});
