/**
 * Four nodes, N=3: a quarter of the time the node a client talks to is not one of the key's
 * replicas and must forward the write to one that is.
 */
import { contextCoordinator } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  http,
  kvPath,
  putAfterKill,
  type SiblingBody,
  startCluster,
  status,
  type TestCluster,
  waitFor,
} from './helpers.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster(4);
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

async function outsider(key: string): Promise<{ outside: number; replicas: string[] }> {
  const res = await http(cluster.nodes[0]!.url, 'GET', `/v1/preference-list/${encodeURIComponent(key)}`);
  const replicas = (res.body.nodes as string[]).slice(0, 3);
  const outside = cluster.nodes.findIndex((n) => !replicas.includes(n.spec.nodeId));
  return { outside, replicas };
}

describe('a node that is not a replica of the key', () => {
  it('forwards writes to a replica; the value lands on exactly the preference list', async () => {
    for (let i = 0; i < 12; i++) {
      const key = `fwd-${i}`;
      const { outside, replicas } = await outsider(key);
      const res = await http(cluster.nodes[outside]!.url, 'PUT', kvPath(key), { json: { value: i } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const read = await http(cluster.nodes[outside]!.url, 'GET', kvPath(key));
      expect((read.body as unknown as SiblingBody).siblings.map((s) => s.value)).toEqual([i]);
      // W=2 acknowledged; the third replica gets it too, and the outsider never stores it.
      for (const node of cluster.nodes) {
        const local = await http(node.url, 'GET', kvPath(key, '?local=true'));
        if (!replicas.includes(node.spec.nodeId)) expect(local.status).toBe(404);
      }
    }
  });

  it('keeps two blind writes through it as two siblings', async () => {
    const { outside } = await outsider('fwd-siblings');
    const url = cluster.nodes[outside]!.url;
    await http(url, 'PUT', kvPath('fwd-siblings'), { json: { value: 'a' } });
    await http(url, 'PUT', kvPath('fwd-siblings'), { json: { value: 'b' } });
    const read = (await http(url, 'GET', kvPath('fwd-siblings'))).body as unknown as SiblingBody;
    expect(read.siblings.map((s) => s.value).sort()).toEqual(['a', 'b']);
  });

  it('forwards to another replica when the first one is down', async () => {
    const key = 'fwd-failover';
    const { outside, replicas } = await outsider(key);
    const first = cluster.nodes.find((n) => n.spec.nodeId === replicas[0])!;
    await first.kill();
    try {
      const res = await putAfterKill(cluster.nodes[outside]!.url, kvPath(key), { value: 'still writable' }, [
        first.spec.nodeId,
      ]);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const read = await http(cluster.nodes[outside]!.url, 'GET', kvPath(key));
      expect((read.body as unknown as SiblingBody).siblings.map((s) => s.value)).toEqual(['still writable']);
    } finally {
      await first.start();
    }
  }, 30_000);
});

describe('the coordinator named by a context (paper section 5)', () => {
  it('a write with a read context is coordinated by the replica that context names', async () => {
    // A node skips a peer it saw fail (an earlier test restarted one) for a while: wait until none does.
    await waitFor(
      async () => {
        for (const node of cluster.nodes)
          if ((await status(node.url)).members.some((m) => m.status !== 'up')) return false;
        return true;
      },
      20_000,
      'every node sees every other up',
    );
    for (let i = 0; i < 6; i++) {
      const key = `chosen-${i}`;
      const { replicas } = await outsider(key);
      await http(cluster.nodes[0]!.url, 'PUT', kvPath(key), { json: { value: 0 } });
      const read = await http(cluster.nodes[i % 4]!.url, 'GET', kvPath(key));
      const context = read.body.context as string;
      const chosen = contextCoordinator(context);
      expect(replicas).toContain(chosen);
      // Sent to any other node, the write goes to the chosen replica, which names itself in turn.
      const other = cluster.nodes.find((n) => n.spec.nodeId !== chosen)!;
      const put = await http(other.url, 'PUT', kvPath(key), { json: { value: 1, context } });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(contextCoordinator(put.body.context as string)).toBe(chosen);
    }
  });

  it('a write whose chosen coordinator is down is coordinated by another replica', async () => {
    const key = 'chosen-down';
    const { replicas } = await outsider(key);
    const chosenNode = cluster.nodes.find((n) => n.spec.nodeId === replicas[0])!;
    await http(chosenNode.url, 'PUT', kvPath(key), { json: { value: 0 } });
    const read = await http(chosenNode.url, 'GET', kvPath(key));
    const context = read.body.context as string;
    const chosen = contextCoordinator(context)!;
    const down = cluster.nodes.find((n) => n.spec.nodeId === chosen)!;
    await down.kill();
    try {
      const other = cluster.nodes.find((n) => n.spec.nodeId !== chosen && replicas.includes(n.spec.nodeId))!;
      const put = await putAfterKill(other.url, kvPath(key), { value: 1, context }, [chosen]);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(contextCoordinator(put.body.context as string)).toBe(other.spec.nodeId);
    } finally {
      await down.start();
    }
  }, 30_000);
});
