/** Routing and retries against a fake cluster (test/fake-nodes.ts): which node gets each attempt. */
import { encodeContext } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type RequestEvent, TesseraClient, type TesseraError } from '../src/index.js';
import { FakeNodes, type FakeNodesOptions } from './fake-nodes.js';

const IDS = ['a', 'b', 'c', 'd'];
const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function setup(options: Partial<FakeNodesOptions> = {}, events?: RequestEvent[]) {
  const fake = new FakeNodes({ ids: IDS, n: 2, publishRing: true, ...options });
  const client = new TesseraClient({
    nodes: [fake.url('a')],
    transport: fake,
    backoff: { baseMs: 1, maxMs: 2 },
    ...(events === undefined ? {} : { onRequest: (e) => events.push(e) }),
  });
  clients.push(client);
  return { fake, client };
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

const keys = Array.from({ length: 40 }, (_, i) => `user/${i}`);

describe('partition-aware routing', () => {
  it('sends every call to the first replica of its key, learned from the ring in /v1/status', async () => {
    const events: RequestEvent[] = [];
    const { fake, client } = setup({}, events);
    for (const key of keys) {
      await client.put(key, { key });
      expect((await client.get(key)).siblings).toEqual([{ key }]);
    }
    const kv = events.filter((e) => e.key !== undefined);
    expect(kv).toHaveLength(80);
    for (const e of kv) {
      expect(e.nodeId).toBe(fake.replicas(e.key!)[0]);
      expect(e.role).toBe('replica');
    }
    // Keys spread over every node, not through the one seed.
    expect(new Set(kv.map((e) => e.nodeId))).toEqual(new Set(IDS));
    expect(client.stats().ring).toMatchObject({ source: 'status', version: 7, partitionCount: 16, n: 2 });
  });

  it('sends a write with a context to the replica the context names as coordinator (paper 5)', async () => {
    const events: RequestEvent[] = [];
    const { fake, client } = setup({}, events);
    for (const key of keys.slice(0, 8)) {
      const second = fake.replicas(key)[1]!;
      const context = encodeContext(key, { vv: [], dots: [], coordinator: second });
      await client.put(key, 1, { context });
      expect(events.at(-1)).toMatchObject({ key, nodeId: second, role: 'replica' });
      // A context naming a node that is not a replica of the key is ignored.
      const stranger = encodeContext(key, { vv: [], dots: [], coordinator: 'nobody' });
      await client.put(key, 2, { context: stranger });
      expect(events.at(-1)).toMatchObject({ key, nodeId: fake.replicas(key)[0] });
    }
  });

  it('rebuilds the owners from /v1/preference-list when /v1/status does not publish them', async () => {
    const events: RequestEvent[] = [];
    const { fake, client } = setup({ publishRing: false }, events);
    for (const key of keys) await client.put(key, 1);
    for (const e of events.filter((x) => x.key !== undefined))
      expect(e.nodeId).toBe(fake.replicas(e.key!)[0]);
    expect(client.stats().ring?.source).toBe('probe');
    // One status before and after, one preference-list call per partition, all to the seed.
    const probes = fake.log.filter((l) => l.url.includes('/v1/preference-list/'));
    expect(probes).toHaveLength(16);
    // A periodic refresh with an unchanged ring costs one status call, no probing.
    await client.refreshRing();
    expect(fake.log.filter((l) => l.url.includes('/v1/preference-list/'))).toHaveLength(16);
  });

  it('does not route with a ring it cannot trust (a node hashing keys differently), and still works', async () => {
    const { client } = setup({ publishRing: false, skewPartitions: true });
    await client.put('k', 1);
    expect((await client.get('k')).siblings).toEqual([1]);
    const stats = client.stats();
    expect(stats.ring).toBeUndefined();
    expect(stats.ringRefreshFailures).toBeGreaterThan(0);
    expect(stats.byRole.unrouted).toBe(stats.requests);
  });

  it('routes around a node that refuses connections, marks it down and refreshes the ring', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = keys.find((k) => fake.replicas(k)[0] === 'b')!;
    fake.faults.set('b', { kind: 'refuse' });
    const refreshesBefore = client.stats().ringRefreshes;
    await client.put(key, 'v');
    const puts = fake.log.filter((l) => l.method === 'PUT').map((l) => l.nodeId);
    expect(puts).toEqual(['b', fake.replicas(key)[1]]);
    expect(client.stats().nodesDown).toEqual([fake.url('b')]);
    await expect.poll(() => client.stats().ringRefreshes).toBeGreaterThan(refreshesBefore);
    // Later calls go to the next replica first.
    await client.get(key);
    expect(fake.log.at(-1)?.nodeId).toBe(fake.replicas(key)[1]);
  });
});

describe('retries only where safe', () => {
  it('does not resend a put after the connection failed mid-request, and says it may have been applied', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    fake.faults.set('a', { kind: 'reset' });
    const key = keys.find((k) => fake.replicas(k)[0] === 'a')!;
    const err = await failure(client.put(key, 'v'));
    expect(err).toMatchObject({
      code: 'CONNECTION_FAILED',
      maybeApplied: true,
      nodeId: 'a',
      key,
      attempts: 1,
    });
    expect(err.node).toBe(fake.url('a'));
    expect(fake.log.filter((l) => l.method === 'PUT')).toHaveLength(1);
  });

  it('does not resend a put answered 503 INSUFFICIENT_REPLICAS, and carries code, status and node', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = keys.find((k) => fake.replicas(k)[0] === 'c')!;
    fake.faults.set('c', { kind: 'error', status: 503, code: 'INSUFFICIENT_REPLICAS' });
    const err = await failure(client.put(key, 'v'));
    expect(err).toMatchObject({
      code: 'INSUFFICIENT_REPLICAS',
      httpStatus: 503,
      nodeId: 'c',
      maybeApplied: true,
    });
    expect(fake.log.filter((l) => l.method === 'PUT')).toHaveLength(1);
  });

  it('resends a put the node refused before doing anything (OVERLOADED)', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = keys.find((k) => fake.replicas(k)[0] === 'c')!;
    fake.faults.set('c', { kind: 'error', status: 503, code: 'OVERLOADED' });
    await client.put(key, 'v');
    expect(fake.log.filter((l) => l.method === 'PUT').map((l) => l.nodeId)).toEqual([
      'c',
      fake.replicas(key)[1],
    ]);
  });

  it('retries a get on another node after a 503, and a delete with a context after a reset', async () => {
    const { fake, client } = setup();
    await client.refreshRing();
    const key = keys.find((k) => fake.replicas(k)[0] === 'd')!;
    await client.put(key, 'v');
    fake.faults.set('d', { kind: 'error', status: 503, code: 'INSUFFICIENT_REPLICAS', once: true });
    expect((await client.get(key)).siblings).toEqual(['v']);
    fake.faults.set('d', { kind: 'reset' });
    expect(await client.delete(key, { context: 'ctx-1' })).toMatchObject({ found: true });
    await client.put(key, 'again');
    fake.faults.set(fake.replicas(key)[1]!, { kind: 'reset' });
    const blind = await failure(client.delete(key));
    expect(blind).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
  });

  it('waits for Retry-After before resending to an overloaded node when it has no other, and gives up after `retries`', async () => {
    const { fake, client } = setup({ ids: ['a'], n: 1 });
    await client.refreshRing();
    fake.faults.set('a', { kind: 'error', status: 503, code: 'OVERLOADED', once: true, retryAfter: '0.2' });
    const started = Date.now();
    await client.put('k', 'v');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(fake.log.filter((l) => l.method === 'PUT')).toHaveLength(2);
    fake.faults.set('a', { kind: 'error', status: 503, code: 'OVERLOADED', retryAfter: '0.05' });
    const err = await failure(client.put('k', 'w', { retries: 2 }));
    expect(err).toMatchObject({ code: 'OVERLOADED', attempts: 3, retryAfterMs: 50, maybeApplied: false });
  });

  it('gives up after `retries` extra attempts', async () => {
    const { fake, client } = setup();
    for (const id of IDS) fake.faults.set(id, { kind: 'error', status: 503, code: 'TIMEOUT' });
    const err = await failure(client.get('k', { retries: 1 }));
    // The status the node answered, not the code's (504): what the client saw.
    expect(err).toMatchObject({ code: 'TIMEOUT', httpStatus: 503, attempts: 2, maybeApplied: false });
  });

  it('times out an attempt after timeoutMs, and stops at once when the caller aborts', async () => {
    const { fake, client } = setup();
    for (const id of IDS) fake.faults.set(id, { kind: 'hang' });
    const timedOut = await failure(client.put('k', 1, { timeoutMs: 30, retries: 0 }));
    expect(timedOut).toMatchObject({ code: 'REQUEST_TIMEOUT', maybeApplied: true });
    const controller = new AbortController();
    const pending = client.get('k', { signal: controller.signal, timeoutMs: 10_000 });
    setTimeout(() => controller.abort(), 20);
    expect(await failure(pending)).toMatchObject({ code: 'ABORTED' });
  });
});

describe('the key-value calls', () => {
  it('answers a missing key with no siblings, and a delete of it with found: false', async () => {
    const { client } = setup();
    expect(await client.get('nothing')).toEqual({ key: 'nothing', siblings: [], versions: [] });
    expect(await client.delete('nothing')).toEqual({ context: undefined, found: false });
  });

  it('refuses bad keys, bad options and calls after close, with codes', async () => {
    const { client } = setup();
    expect(await failure(client.get(''))).toMatchObject({ code: 'INVALID_KEY' });
    expect(await failure(client.get('x'.repeat(1025)))).toMatchObject({ code: 'INVALID_KEY' });
    expect(() => new TesseraClient({ nodes: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => new TesseraClient({ nodes: ['localhost:7000'] })).toThrow(/not an http/);
    await client.close();
    expect(await failure(client.get('k'))).toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it('survives an observer that throws', async () => {
    const fake = new FakeNodes({ ids: IDS, publishRing: true });
    const client = new TesseraClient({
      nodes: [fake.url('a')],
      transport: fake,
      onRequest: () => {
        throw new Error('observer bug');
      },
    });
    clients.push(client);
    await client.put('k', 1);
    expect(client.stats().requests).toBe(1);
  });
});
