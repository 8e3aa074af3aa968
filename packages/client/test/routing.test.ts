/**
 * Partition-aware routing against a real cluster of three processes with N=2, R=1, W=1, so that
 * every key has a node that is not one of its replicas: a write sent there costs a forwarding hop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster, waitFor } from '../../server/test/helpers.js';
import { type RequestEvent, TesseraClient, type TesseraError, type Transport } from '../src/node.js';
import { undiciTransport } from '../src/transport/undici.js';

let cluster: TestCluster;
const clients: TesseraClient[] = [];
const urls = (): string[] => cluster.nodes.map((n) => n.url);

beforeAll(async () => {
  cluster = await startCluster(3, ['--n', '2', '--r', '1', '--w', '1']);
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.destroy();
});

function track(options: Partial<ConstructorParameters<typeof TesseraClient>[0]> = {}) {
  const events: RequestEvent[] = [];
  const client = new TesseraClient({
    nodes: [urls()[0]!],
    onRequest: (e) => events.push(e),
    ...options,
  });
  clients.push(client);
  return { client, events };
}

/** The key's preference list as the cluster computes it. */
async function preferenceList(key: string): Promise<string[]> {
  const res = await fetch(`${urls()[0]}/v1/preference-list/${encodeURIComponent(key)}`);
  return ((await res.json()) as { nodes: string[] }).nodes;
}

/** Writes that reached a node which is not one of the key's N=2 replicas: each costs one forward. */
function extraHops(events: RequestEvent[], lists: Map<string, string[]>): number {
  const idOf = new Map(cluster.nodes.map((n) => [n.url, n.spec.nodeId]));
  return events.filter((e) => {
    const nodeId = e.nodeId ?? idOf.get(e.node);
    return e.method === 'PUT' && !lists.get(e.key!)!.slice(0, 2).includes(nodeId!);
  }).length;
}

/** A transport that hides `ring` from /v1/status, like a node that does not publish its owners. */
function withoutRingField(inner: Transport): Transport {
  return {
    async request(req) {
      const res = await inner.request(req);
      if (!req.url.endsWith('/v1/status')) return res;
      const { ring: _hidden, ...rest } = JSON.parse(res.text) as Record<string, unknown>;
      return { ...res, text: JSON.stringify(rest) };
    },
    close: () => inner.close?.() ?? Promise.resolve(),
  };
}

describe('partition-aware routing', () => {
  const keys = Array.from({ length: 60 }, (_, i) => `route/${i}`);

  it('sends each call to the first node of its key’s preference list; one pinned node forwards a third of writes', async () => {
    const lists = new Map(await Promise.all(keys.map(async (k) => [k, await preferenceList(k)] as const)));
    const routed = track();
    const pinned = track({ routing: false });
    for (const key of keys) {
      await routed.client.put(key, key);
      await pinned.client.put(key, key);
      expect((await routed.client.get(key)).siblings).toContain(key);
    }
    for (const e of routed.events.filter((x) => x.key !== undefined)) {
      expect(e.nodeId, e.key).toBe(lists.get(e.key!)![0]);
      expect(e.role).toBe('replica');
    }
    expect(extraHops(routed.events, lists)).toBe(0);
    // Through one node, the writes of every key it does not replicate take an extra hop.
    const pinnedHops = extraHops(pinned.events, lists);
    expect(pinnedHops).toBeGreaterThan(keys.length / 6);
    expect(pinnedHops).toBeLessThan(keys.length / 2);
    expect(new Set(pinned.events.map((e) => e.node))).toEqual(new Set([urls()[0]]));
    const stats = routed.client.stats();
    expect(stats.byRole).toEqual({ replica: stats.requests, fallback: 0, unrouted: 0 });
    expect(Object.keys(stats.byNode).sort()).toEqual(['n0', 'n1', 'n2']);
  });

  it('rebuilds the same ring from /v1/preference-list when /v1/status does not publish owners', async () => {
    const probed = track({ transport: withoutRingField(undiciTransport()) });
    const published = track();
    for (const key of keys.slice(0, 20)) {
      const [a, b] = await Promise.all([probed.client.routesFor(key), published.client.routesFor(key)]);
      expect(a.map((r) => r.nodeId)).toEqual(b.map((r) => r.nodeId));
      expect(a[0]!.nodeId).toBe((await preferenceList(key))[0]);
    }
    expect(probed.client.stats().ring).toMatchObject({ source: 'probe', partitionCount: 64, n: 2 });
    await probed.client.close();
  });

  it('keeps serving through a node killed with kill -9 mid-run, routing to the surviving replicas', async () => {
    const { client, events } = track({ nodes: urls(), nodeDownMs: 60_000 });
    await client.refreshRing();
    const victim = cluster.nodes[1]!;
    const failures: TesseraError[] = [];
    const reads: { i: number; siblings: number[] }[] = [];
    let done = 0;
    let killedAt = Number.POSITIVE_INFINITY;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; i < 50; i++) {
        const key = `kill/${w}/${i}`;
        try {
          await client.put(key, i);
          // With R=1 a read may miss a write a moment old (R + W = N), but never sees another value.
          reads.push({ i, siblings: (await client.get<number>(key)).siblings });
        } catch (err) {
          failures.push(err as TesseraError);
        }
        if (++done === 60) {
          killedAt = events.length;
          await victim.kill();
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(victim.running).toBe(false);
    // Only calls in flight on the victim when it died may fail, and they say so.
    expect(failures.length).toBeLessThanOrEqual(4);
    for (const f of failures) expect(f).toMatchObject({ code: 'CONNECTION_FAILED', nodeId: 'n1' });
    expect(reads.length).toBe(200 - failures.length);
    for (const r of reads) expect(r.siblings.every((v) => v === r.i)).toBe(true);
    expect(reads.filter((r) => r.siblings.length === 1).length).toBeGreaterThan(150);
    // After the kill, every answered call came from a surviving replica of its key.
    const after = events.slice(killedAt + 8).filter((e) => e.code === undefined);
    expect(after.length).toBeGreaterThan(200);
    for (const e of after) {
      expect(e.nodeId).not.toBe('n1');
      expect((await preferenceList(e.key!)).slice(0, 2)).toContain(e.nodeId);
    }
    expect(client.stats().nodesDown).toContain(victim.url);
    await waitFor(async () => client.stats().ringRefreshes >= 2, 5_000, 'the client refreshed its ring');
  });
});
