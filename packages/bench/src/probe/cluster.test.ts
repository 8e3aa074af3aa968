import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built probe: its nodes run as processes from dist (`pnpm build` first, as CI does).
import { type ProbeCluster, startProbeCluster } from '../../dist/probe/cluster.js';

describe('the replication-shape probe', () => {
  let cluster: ProbeCluster;
  beforeAll(async () => {
    cluster = await startProbeCluster();
  });
  afterAll(() => cluster?.stop());

  it('answers a put once two of its three nodes stored it, and reads it back through the coordinator', async () => {
    const [n0] = cluster.urls;
    const put = await fetch(`${n0}/v1/kv/a`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ value: { items: [1, 2] } }),
    });
    expect(put.status).toBe(200);
    const got = await fetch(`${n0}/v1/kv/a`);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual({ siblings: [{ value: { items: [1, 2] } }], context: '-' });
    expect((await fetch(`${n0}/v1/kv/absent`)).status).toBe(404);
  });

  it('refuses requests at the nodes that only serve peers, with 503 at once', async () => {
    const got = await fetch(`${cluster.urls[1]}/v1/kv/a`);
    expect(got.status).toBe(503);
    expect(await got.text()).toContain('send requests to n0');
  });

  it('says in its status that it is the probe, for the report', async () => {
    const status = (await (await fetch(`${cluster.urls[0]}/v1/status`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ nodeId: 'n0', n: 3, r: 2, w: 2, probe: true });
  });

  it('answers at two of three nodes, and with 503 once fewer than two can answer (last: it stops the peers)', async () => {
    const put = (key: string) =>
      fetch(`${cluster.urls[0]}/v1/kv/${key}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"value":1}',
      });
    await cluster.stopNode(1);
    expect((await put('one-peer-gone')).status).toBe(200);
    await cluster.stopNode(2);
    const refused = await put('both-peers-gone');
    expect(refused.status).toBe(503);
    expect(await refused.text()).toContain('fewer than two nodes can answer');
  });
});
