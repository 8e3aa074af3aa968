/**
 * Three nodes on three "machines": each in its own network namespace with its own address, bound
 * and advertised there, HTTPS for clients and mTLS between peers. One node is cut off with
 * nftables rules (not the in-app proxy): the majority still takes writes, the cut-off node cannot
 * reach a quorum, and after the heal it holds what was written while it was away.
 * Needs root, iproute2 and nftables (`.ci/run` installs them); see docs/testing.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '@tessera/core';
import { CLI_PATH } from '@tessera/server/local-cluster';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChaosCluster } from '../src/cluster.js';
import { nodeFetch } from '../src/http.js';
import { NetnsChaosNetwork } from '../src/netns/chaos-network.js';

const SETTLE_MS = 15_000;
const CONVERGE_MS = 10_000;

let dir: string;
let cluster: ChaosCluster;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-netns-'));
  cluster = await ChaosCluster.create({
    members: 3,
    spares: 0,
    dir,
    cliPath: CLI_PATH,
    random: createRng(16),
    network: 'netns',
    settings: { strongTimeoutMs: 1_500, requestTimeoutMs: 1_500 },
  });
  await cluster.startAll();
  await waitFor('a 3-node ring, every member up', SETTLE_MS, async () => {
    const views = await Promise.all(cluster.ids.map((id) => cluster.status(id)));
    return views.every(
      (s) =>
        s.pending === null && s.members.filter((m) => m.status === 'up' && m.partitions > 0).length === 3,
    );
  });
});

afterAll(async () => {
  await cluster?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('nodes in network namespaces, TLS on, partitioned with nftables', () => {
  it('each node is bound and advertised on its own namespace address, over HTTPS', async () => {
    const { network: netns } = cluster;
    if (!(netns instanceof NetnsChaosNetwork)) throw new Error('expected the netns network');
    const network = netns;
    const addresses = network.network.hosts.map((h) => h.address);
    expect(new Set(addresses).size).toBe(3);
    const status = await cluster.status('n0');
    expect(status.members.map((m) => m.http).sort()).toEqual(addresses.map((a) => `${a}:7000`).sort());
    expect(cluster.url('n1')).toMatch(/^https:\/\/10\.77\.\d+\.12:7000$/);
    // Without the token the node refuses: TLS and tokens are on, not an open test setup.
    const anonymous = await fetchWithoutToken(cluster.url('n1'), network.tls.caPem);
    expect(anonymous).toBe(401);
  });

  it('a cut-off node loses its quorum while the majority writes; after the heal it converges', async () => {
    expect((await put('n0', 'netns-before', 'before')).status).toBe(200);
    await cutOff('n2');
    try {
      // The majority side: W=2 of n0 and n1.
      expect((await put('n0', 'netns-split', 'during')).status).toBe(200);
      // The minority: n2 cannot reach a second replica, for a quorum write or a strong one
      // (its packets are dropped, so it may only notice at the deadline).
      const unreachable = ['INSUFFICIENT_REPLICAS', 'TIMEOUT', 'PEER_UNAVAILABLE'];
      const weak = await put('n2', 'netns-minority', 'lost');
      expect([503, 504]).toContain(weak.status);
      expect(unreachable).toContain(weak.code);
      const strong = await put('n2', 'registers/netns-r', 'lost');
      expect([503, 504]).toContain(strong.status);
      expect(await cluster.localValues('n2', 'netns-split')).toEqual([]);
    } finally {
      await cluster.healLinks();
    }
    await waitFor('n2 to hold the write of the split', CONVERGE_MS, async () => {
      const values = await cluster.localValues('n2', 'netns-split');
      return values.length === 1 && values[0] === 'during';
    });
    const read = await nodeFetch(`${cluster.url('n2')}/v1/kv/netns-split`);
    expect(((await read.json()) as { siblings: { value: unknown }[] }).siblings.map((s) => s.value)).toEqual([
      'during',
    ]);
  });
});

/** nftables rules cut `id` from every other node, both ways. */
async function cutOff(id: string): Promise<void> {
  for (const other of cluster.ids.filter((x) => x !== id)) {
    await cluster.setLink(id, other, { kind: 'partition' });
    await cluster.setLink(other, id, { kind: 'partition' });
  }
}

async function put(id: string, key: string, value: string): Promise<{ status: number; code?: string }> {
  const res = await nodeFetch(`${cluster.url(id)}/v1/kv/${encodeURIComponent(key)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ value }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
  return { status: res.status, ...(body.error?.code === undefined ? {} : { code: body.error.code }) };
}

async function fetchWithoutToken(url: string, ca: string): Promise<number> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    request(`${url}/v1/status`, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

/** Waits until `check` is true, polling through vitest's `vi.waitFor`; the error names `what`. */
function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  return vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`still waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
