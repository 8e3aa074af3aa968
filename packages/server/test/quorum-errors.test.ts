/**
 * Quorum errors that count what really happened, against real node processes: with one of three
 * nodes killed, a w=3 put answers INSUFFICIENT_REPLICAS saying the two others acknowledged (and
 * they hold the value), and an r=3 get that two answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kvPath, localValues, startCluster, type TestCluster } from './helpers.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster(3);
  await cluster.nodes[2]!.kill();
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('a quorum one node short', () => {
  it('w=3: "Only 2 of the 3 replicas a write needs answered", and the two hold the value', async () => {
    const [a, b] = cluster.nodes.map((n) => n.url);
    // Once while the node is fresh dead (its peers have not marked it down yet), once after.
    for (const key of ['quorum/w3-first', 'quorum/w3-second']) {
      const put = await http(a!, 'PUT', kvPath(key, '?w=3'), { json: { value: { n: 1 } } });
      expect(put.status).toBe(503);
      const error = put.body.error as { code: string; message: string; details: Record<string, unknown> };
      expect(error.code).toBe('INSUFFICIENT_REPLICAS');
      expect(error.details).toMatchObject({ needed: 3, answered: 2, pending: 0 });
      expect(error.message).toMatch(/^Only 2 of the 3 replicas a write needs answered/);
      expect(await localValues(a!, key)).toEqual([{ n: 1 }]);
      expect(await localValues(b!, key)).toEqual([{ n: 1 }]);
    }
  });

  it('r=3: "Only 2 of the 3 replicas a read needs answered"', async () => {
    const [a] = cluster.nodes.map((n) => n.url);
    await http(a!, 'PUT', kvPath('quorum/r3'), { json: { value: 'x' } });
    const get = await http(a!, 'GET', kvPath('quorum/r3', '?r=3'));
    expect(get.status).toBe(503);
    const error = get.body.error as { code: string; message: string; details: Record<string, unknown> };
    expect(error).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', details: { needed: 3, answered: 2 } });
    expect(error.message).toMatch(/^Only 2 of the 3 replicas a read needs answered/);
  });
});
