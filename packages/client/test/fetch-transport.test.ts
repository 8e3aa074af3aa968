/**
 * The fetch transport as in a browser, whose fetch fails with a bare TypeError whatever went wrong
 * (a refused connection, a refused origin, a connection broken after sending): it checks a node
 * before writing to it, so that a refusal is NODE_UNREACHABLE with maybeApplied false and the
 * write is not sent, while a failure after sending stays "may have been applied". And routing in a
 * browser goes only to the nodes the page lists.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fetchTransport, TesseraClient, TesseraError } from '../src/index.js';
import { listedNodesOnly, loadRing } from '../src/routing/ring.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

type Mode = 'ok' | 'refuse' | 'drop-writes';

/** A browser-like fetch: per node, answers, fails everything with a TypeError, or drops writes after "sending" them. */
function browserFetch(modes: Record<string, Mode>) {
  const sent: string[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const u = new URL(url);
    const mode = modes[u.host] ?? 'ok';
    if (mode === 'refuse') throw new TypeError('Failed to fetch');
    sent.push(`${init.method} ${u.host}${u.pathname}`);
    if (mode === 'drop-writes' && init.method !== 'GET') throw new TypeError('Failed to fetch');
    if (u.pathname === '/health') return new Response('{"status":"ok"}', { status: 200 });
    if (init.method === 'GET') return Response.json({ key: 'k', siblings: [] });
    return Response.json({ context: 'c1.x' });
  };
  return { fetch, sent };
}

function client(fetch: ReturnType<typeof browserFetch>['fetch'], node = 'http://a.test:7000') {
  const c = new TesseraClient({
    nodes: [node],
    routing: false,
    retries: 0,
    transport: fetchTransport(fetch, { checkBeforeWrite: true }),
  });
  clients.push(c);
  return c;
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    expect(TesseraError.is(err), String(err)).toBe(true);
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

describe('the fetch transport in a browser', () => {
  it('a node refusing the page (CORS, or no connection): NODE_UNREACHABLE, maybeApplied false, nothing sent', async () => {
    const { fetch, sent } = browserFetch({ 'a.test:7000': 'refuse' });
    const c = client(fetch);
    const put = await failure(c.put('k', 1));
    expect(put).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false });
    expect(put.message).toContain('the write was not sent');
    expect(put.message).toContain('--cors-origin');
    const get = await failure(c.get('k'));
    expect(get).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false });
    const del = await failure(c.delete('k'));
    expect(del).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false });
    expect(sent).toEqual([]);
  });

  it('checks a node once before writing to it, and again only after it failed', async () => {
    const modes: Record<string, Mode> = {};
    const { fetch, sent } = browserFetch(modes);
    const c = client(fetch);
    await c.put('k', 1);
    await c.put('k', 2);
    expect(sent).toEqual(['GET a.test:7000/health', 'PUT a.test:7000/v1/kv/k', 'PUT a.test:7000/v1/kv/k']);
    // The node answered the check, then the write broke off: it may have been applied.
    modes['a.test:7000'] = 'drop-writes';
    const dropped = await failure(c.put('k', 3));
    expect(dropped).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
    // Now down: the next write checks first, and is not sent.
    modes['a.test:7000'] = 'refuse';
    expect(await failure(c.put('k', 4))).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false });
    expect(sent.filter((s) => s.startsWith('PUT'))).toHaveLength(3);
  });

  it('a GET needs no check: it is the check', async () => {
    const { fetch, sent } = browserFetch({});
    const c = client(fetch);
    await c.get('k');
    await c.put('k', 1);
    expect(sent).toEqual(['GET a.test:7000/v1/kv/k', 'PUT a.test:7000/v1/kv/k']);
  });

  it('a refused write is sent to another node', async () => {
    const { fetch, sent } = browserFetch({ 'a.test:7000': 'refuse' });
    const c = new TesseraClient({
      nodes: ['http://a.test:7000', 'http://b.test:7000'],
      routing: false,
      transport: fetchTransport(fetch, { checkBeforeWrite: true }),
      backoff: { baseMs: 1, maxMs: 1 },
    });
    clients.push(c);
    await c.put('k', 1);
    await c.put('k', 2);
    expect(sent.filter((s) => s.startsWith('PUT'))).toEqual([
      'PUT b.test:7000/v1/kv/k',
      'PUT b.test:7000/v1/kv/k',
    ]);
  });

  it('off (outside browsers), a bare TypeError counts as "may have reached the node", as before', async () => {
    const { fetch } = browserFetch({ 'a.test:7000': 'refuse' });
    const c = new TesseraClient({
      nodes: ['http://a.test:7000'],
      routing: false,
      retries: 0,
      transport: fetchTransport(fetch, { checkBeforeWrite: false }),
    });
    clients.push(c);
    expect(await failure(c.put('k', 1))).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
  });
});

describe('routing in a browser', () => {
  const status = {
    nodeId: 'a',
    n: 2,
    partitionCount: 4,
    ringVersion: 1,
    members: ['a', 'b', 'c'].map((id, i) => ({
      nodeId: id,
      http: `127.0.0.1:700${i}`,
      status: 'up',
      partitions: i === 2 ? 2 : 1,
    })),
    ring: { partitionCount: 4, owners: ['a', 'b', 'c', 'c'], version: 1 },
  };

  it('goes only to members listed in `nodes`: an advertised address the page does not list is skipped', async () => {
    const listed = ['http://127.0.0.1:7000', 'http://127.0.0.1:7001'];
    const view = await loadRing(async () => status, listed[0]!, undefined, listedNodesOnly(listed));
    expect([...view.members.values()].map((m) => m.url)).toEqual(listed);
    const all = await loadRing(async () => status, listed[0]!, undefined);
    expect(all.members.size).toBe(3);
  });
});

describe('behind a gateway whose nodes are gone', () => {
  it('checks again after a 5xx answer, and then does not send the write', async () => {
    let gatewayUp = true;
    const sent: string[] = [];
    const fetch = async (url: string, init: RequestInit): Promise<Response> => {
      const path = new URL(url).pathname;
      sent.push(`${init.method} ${path}`);
      if (!gatewayUp) return new Response('bad gateway', { status: 502 });
      if (path === '/health') return new Response('{"status":"ok"}');
      return Response.json({ context: 'c1.x' });
    };
    const c = new TesseraClient({
      nodes: ['https://shop.test'],
      routing: false,
      retries: 0,
      transport: fetchTransport(fetch, { checkBeforeWrite: true }),
    });
    clients.push(c);
    await c.put('k', 1);
    gatewayUp = false;
    // The gateway answered the check before: this write may have reached a node.
    expect(await failure(c.put('k', 2))).toMatchObject({
      code: 'BAD_RESPONSE',
      httpStatus: 502,
      maybeApplied: true,
    });
    // After the 5xx the gateway is checked again: its 502 to the check means nothing is sent.
    expect(await failure(c.put('k', 3))).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false });
    expect(sent).toEqual(['GET /health', 'PUT /v1/kv/k', 'PUT /v1/kv/k', 'GET /health']);
  });
});
