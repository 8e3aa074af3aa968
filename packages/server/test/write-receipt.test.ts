/**
 * A write's answer tells how it was stored (`stored`, docs/api.md), on five real node processes
 * (N=3): which nodes had acknowledged when the coordinator answered, as replicas or as hints for
 * a replica, with `replicas` of `n` and the `w` asked. A normal put reports its W replicas or
 * more; a forwarded one brings its coordinator's receipt back through the Coordinate call; a put
 * whose fan-out reached a fallback reports the hint and for whom; and during a split a put on the
 * minority side reports the one replica that has it: "saved on n0 only, 1 of 3 replicas".
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LocalNode } from '../src/cli/local-cluster.js';
import {
  configFile,
  healNetwork,
  http,
  kvPath,
  preferenceList,
  splitNetwork,
  startCluster,
  status,
  type TestCluster,
  waitFor,
} from './helpers.js';

interface Ack {
  node: string;
  as: 'replica' | 'hint';
  for?: string;
}
interface Stored {
  acks: Ack[];
  replicas: number;
  n: number;
  w: number;
}

let cluster: TestCluster;
const byId = (id: string): LocalNode => cluster.nodes.find((n) => n.spec.nodeId === id)!;

beforeAll(async () => {
  const config = await configFile({ peerRetryMs: 300, gossipIntervalMs: 200 });
  cluster = await startCluster(5, ['--fault-injection', '--config', config]);
}, 120_000);

afterAll(async () => {
  await cluster?.destroy();
});

afterEach(async () => {
  await healNetwork(cluster.nodes);
  // Nodes skip a peer that failed for peerRetryMs: wait until no node suspects another any more.
  await waitFor(
    async () => {
      const views = await Promise.all(cluster.nodes.map((n) => status(n.url)));
      return views.every((v) => v.members.every((m) => m.status === 'up'));
    },
    10_000,
    'every node sees every other up after the heal',
  );
});

/** The key's preference list as nodes: its three replicas, then the two fallbacks. */
async function placement(key: string) {
  const prefs = (await preferenceList(cluster.nodes[0]!.url, key)).map(byId);
  return { replicas: prefs.slice(0, 3), fallbacks: prefs.slice(3) };
}

/** A write that must succeed; answers its receipt. */
async function write(node: LocalNode, method: 'PUT' | 'DELETE', key: string, query: string, json: unknown) {
  const res = await http(node.url, method, kvPath(key, query), { json });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.context).toBe('string');
  return res.body.stored as Stored;
}

const ids = (nodes: readonly LocalNode[]): string[] => nodes.map((n) => n.spec.nodeId);

describe('the answer of a write', () => {
  it('reports at least W replica acks for a normal put and delete, the coordinator among them', async () => {
    const key = 'receipt-normal';
    const { replicas } = await placement(key);
    const [p0] = replicas;
    const put = await write(p0!, 'PUT', key, '?w=2', { value: ['apple'] });
    expect(put).toMatchObject({ n: 3, w: 2 });
    expect(put.replicas).toBeGreaterThanOrEqual(2);
    expect(put.acks.every((a) => a.as === 'replica' && ids(replicas).includes(a.node))).toBe(true);
    expect(put.acks.map((a) => a.node)).toContain(p0!.spec.nodeId);
    expect(put.replicas).toBe(put.acks.length);
    // Replicas come in preference-list order.
    const order = put.acks.map((a) => ids(replicas).indexOf(a.node));
    expect(order).toEqual([...order].sort());

    const read = await http(p0!.url, 'GET', kvPath(key));
    const deleted = await write(p0!, 'DELETE', key, '?w=3', { context: read.body.context });
    expect(deleted).toEqual({
      acks: ids(replicas).map((node) => ({ node, as: 'replica' })),
      replicas: 3,
      n: 3,
      w: 3,
    });
  });

  it('brings the receipt of the coordinator back when the write was forwarded', async () => {
    const key = 'receipt-forwarded';
    const { replicas, fallbacks } = await placement(key);
    const outsider = fallbacks[0]!;
    const put = await write(outsider, 'PUT', key, '?w=2', { value: 'forwarded' });
    expect(put).toMatchObject({ n: 3, w: 2 });
    expect(put.replicas).toBeGreaterThanOrEqual(2);
    expect(put.acks.every((a) => a.as === 'replica' && ids(replicas).includes(a.node))).toBe(true);
    expect(put.acks.map((a) => a.node)).not.toContain(outsider.spec.nodeId);
  });

  it('reports a fallback that stood in for an unreachable replica as a hint for it', async () => {
    const key = 'receipt-hinted';
    const { replicas, fallbacks } = await placement(key);
    const [p0, p1, p2] = replicas;
    await splitNetwork(
      [p2!],
      cluster.nodes.filter((n) => n !== p2),
    );
    const put = await write(p0!, 'PUT', key, '?w=3', { value: 'hinted' });
    expect(put).toEqual({
      acks: [
        { node: p0!.spec.nodeId, as: 'replica' },
        { node: p1!.spec.nodeId, as: 'replica' },
        { node: fallbacks[0]!.spec.nodeId, as: 'hint', for: p2!.spec.nodeId },
      ],
      replicas: 2,
      n: 3,
      w: 3,
    });
  });
});

describe('during a split, a put on the minority side', () => {
  it('reports the one replica that has it: the coordinator alone', async () => {
    const key = 'receipt-alone';
    const { replicas } = await placement(key);
    const p0 = replicas[0]!;
    await splitNetwork(
      [p0],
      cluster.nodes.filter((n) => n !== p0),
    );
    const put = await write(p0, 'PUT', key, '?w=1', { value: 'only here' });
    expect(put).toEqual({ acks: [{ node: p0.spec.nodeId, as: 'replica' }], replicas: 1, n: 3, w: 1 });
  });

  it('reports 1 replica and the hints a fallback on its side took for the others', async () => {
    const key = 'receipt-minority';
    const { replicas, fallbacks } = await placement(key);
    const [p0, p1, p2] = replicas;
    const f3 = fallbacks[0]!;
    const minority = [p0!, f3];
    await splitNetwork(
      minority,
      cluster.nodes.filter((n) => !minority.includes(n)),
    );
    const others = [p1!.spec.nodeId, p2!.spec.nodeId];

    // w=1: the coordinator's own copy may be all it waited for; any other ack is f3's hint.
    const one = await write(p0!, 'PUT', key, '?w=1', { value: 'split, w=1' });
    expect(one).toMatchObject({ replicas: 1, n: 3, w: 1 });
    expect(one.acks[0]).toEqual({ node: p0!.spec.nodeId, as: 'replica' });
    for (const ack of one.acks.slice(1)) {
      expect(ack).toMatchObject({ node: f3.spec.nodeId, as: 'hint' });
      expect(others).toContain(ack.for);
    }

    // w=2: it had to wait for f3, which holds it as a hint for a replica on the other side.
    const two = await write(p0!, 'PUT', key, '?w=2', { value: 'split, w=2' });
    expect(two).toMatchObject({ replicas: 1, n: 3, w: 2 });
    expect(two.acks).toHaveLength(2);
    expect(two.acks[0]).toEqual({ node: p0!.spec.nodeId, as: 'replica' });
    expect(two.acks[1]).toMatchObject({ node: f3.spec.nodeId, as: 'hint' });
    expect(others).toContain(two.acks[1]!.for);
  });

  it('after the heal, a put reports every replica again', async () => {
    const key = 'receipt-minority';
    const { replicas } = await placement(key);
    const p0 = replicas[0]!;
    let last: Stored | undefined;
    await waitFor(
      async () => {
        last = await write(p0, 'PUT', key, '?w=3', { value: 'healed' });
        return last.replicas === 3;
      },
      10_000,
      'a w=3 put reports the three replicas',
    );
    expect(last!.acks.every((a) => a.as === 'replica')).toBe(true);
  });
});
