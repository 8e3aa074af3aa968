/**
 * The store's routes against bad input: every mistake gets a clear 4xx with a coded JSON error, and
 * nothing stored changes. Then checkout's exactly-once promise, at the API level, the cart's story
 * as two tabs see it, and the launcher stopping on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../../packages/server/test/resources.js';
import type { CartView, CheckoutResult, ClusterView, Order, OrdersView } from '../src/shared/api.js';
import { type Call, callApp, expectAppError } from './api-calls.js';
import { freePort, type Harness, newCartId, startHarness, storedCart, waitFor } from './harness.js';

let h: Harness;
const stock = {
  get: (id: string) => h.tessera.strong<{ left: number; lastSoldAt: string | null }>('stock').get(id),
};
const strongOrders = { get: (id: string) => h.tessera.strong<Order>('orders').get(id) };

// Stopped even when the start timed out part-way (it is stopped once it ends).
const resources = new Resources();
beforeAll(async () => {
  h = await resources.add(startHarness(), (started) => started.close());
}, 60_000);

afterAll(() => resources.stopAll());

const call = (c: Call) => callApp(h, c);
const expectError = (c: Call, status: number, code: string) => expectAppError(h, c, status, code);

describe('bad input to the store', () => {
  const cartId = newCartId();
  const items = `/api/carts/${cartId}/items`;

  it('answers each mistake with a clear 4xx and its code, and leaves the stored cart as it was', async () => {
    expect((await call({ method: 'POST', url: items, body: { productId: 'mug', quantity: 2 } })).status).toBe(
      200,
    );
    expect((await call({ method: 'POST', url: items, body: { productId: 'lamp' } })).status).toBe(200);
    const before = await storedCart(h.tessera, cartId);
    expect(before).toEqual([
      [
        { item: 'lamp', quantity: 1 },
        { item: 'mug', quantity: 2 },
      ],
    ]);

    const huge = JSON.stringify({ productId: 'mug', quantity: 1, note: 'x'.repeat(200_000) });
    const cases: [Call, number, string][] = [
      [{ method: 'POST', url: items, body: { productId: 'unicorn' } }, 404, 'UNKNOWN_PRODUCT'],
      [{ method: 'PUT', url: `${items}/unicorn`, body: { quantity: 1 } }, 404, 'UNKNOWN_PRODUCT'],
      [{ method: 'DELETE', url: `${items}/unicorn` }, 404, 'UNKNOWN_PRODUCT'],
      [{ method: 'POST', url: items, body: { productId: 'mug', quantity: -1 } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'POST', url: items, body: { productId: 'mug', quantity: 0 } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'POST', url: items, body: { productId: 'mug', quantity: 1.5 } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'POST', url: items, body: { productId: 'mug', quantity: '3' } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'POST', url: items, body: { productId: 'mug', quantity: 1e9 } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'PUT', url: `${items}/mug`, body: { quantity: -5 } }, 400, 'INVALID_QUANTITY'],
      [{ method: 'PUT', url: `${items}/mug`, body: {} }, 400, 'INVALID_QUANTITY'],
      [
        { method: 'POST', url: items, raw: huge, headers: { 'content-type': 'application/json' } },
        413,
        'BODY_TOO_LARGE',
      ],
      [
        {
          method: 'POST',
          url: items,
          raw: '{"productId": "mug"',
          headers: { 'content-type': 'application/json' },
        },
        400,
        'INVALID_JSON',
      ],
      [
        { method: 'POST', url: items, raw: 'productId=mug', headers: { 'content-type': 'text/plain' } },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ method: 'POST', url: items, body: ['mug'] }, 400, 'INVALID_REQUEST'],
      [{ method: 'POST', url: items, body: { productId: 'mug', price: 0 } }, 400, 'INVALID_REQUEST'],
      [
        { method: 'POST', url: items, body: { productId: 'mug' }, headers: { 'x-tessera-node': 'n9' } },
        400,
        'UNKNOWN_NODE',
      ],
      [
        { method: 'POST', url: `/api/carts/${cartId}/checkout`, body: { idempotencyKey: 'short' } },
        400,
        'INVALID_IDEMPOTENCY_KEY',
      ],
      [{ method: 'POST', url: `/api/carts/${cartId}/checkout`, body: {} }, 400, 'INVALID_IDEMPOTENCY_KEY'],
      [{ method: 'GET', url: '/api/carts/x' }, 400, 'INVALID_CART_ID'],
      [
        { method: 'POST', url: items, body: { productId: 'mug' }, headers: { 'x-tessera-tab': 'no tab!' } },
        400,
        'INVALID_REQUEST',
      ],
      [
        { method: 'POST', url: '/api/carts/bad%20id!/items', body: { productId: 'mug' } },
        400,
        'INVALID_CART_ID',
      ],
      [{ method: 'GET', url: `/api/carts/${'a'.repeat(41)}` }, 400, 'INVALID_CART_ID'],
      [{ method: 'POST', url: '/api/cluster/split', body: { isolate: 'n9' } }, 400, 'UNKNOWN_NODE'],
      [{ method: 'POST', url: '/api/cluster/split', body: {} }, 400, 'INVALID_REQUEST'],
      [{ method: 'POST', url: '/api/cluster/nodes/n9/stop', body: {} }, 400, 'UNKNOWN_NODE'],
      [{ method: 'GET', url: '/api/nothing-here' }, 404, 'NOT_FOUND'],
    ];
    for (const [c, status, code] of cases) await expectError(c, status, code);

    expect(await storedCart(h.tessera, cartId)).toEqual(before);
    // Nothing was written under a cart id that was refused either.
    expect((await h.tessera.get(`cart:${'a'.repeat(41)}`)).siblings).toEqual([]);
  });

  it('refuses to check out an empty cart, without placing an order', async () => {
    const empty = newCartId();
    await expectError(
      { method: 'POST', url: `/api/carts/${empty}/checkout`, body: { idempotencyKey: 'key-empty-1' } },
      409,
      'CART_EMPTY',
    );
    const { json } = await call({ method: 'GET', url: `/api/carts/${empty}/orders` });
    expect((json as OrdersView).orders).toEqual([]);
  });
});

describe('checkout', () => {
  it('places one order for one idempotency key, however often it is sent, and empties the cart', async () => {
    const cartId = newCartId();
    const base = `/api/carts/${cartId}`;
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'camera' } });
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'record', quantity: 2 } });
    const press = {
      method: 'POST' as const,
      url: `${base}/checkout`,
      body: { idempotencyKey: 'press-once-123' },
    };

    // Pressed twice at once, then retried later, as after a lost answer.
    const [first, second] = await Promise.all([call(press), call(press)]);
    const retry = await call(press);
    const results = [first, second, retry].map((r) => r.json as CheckoutResult);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
    expect(retry.status).toBe(200);
    expect(new Set(results.map((r) => r.order.id)).size).toBe(1);
    expect(results.map((r) => r.replayed).sort()).toEqual([false, true, true]);
    expect(results[0]!.order.lines.map((l) => [l.productId, l.quantity])).toEqual([
      ['camera', 1],
      ['record', 2],
    ]);
    expect(results[0]!.order.totalCents).toBe(7900 + 2 * 2500);

    const orders = (await call({ method: 'GET', url: `${base}/orders` })).json as OrdersView;
    expect(orders.orders.map((o) => o.id)).toEqual([results[0]!.order.id]);
    expect(await storedCart(h.tessera, cartId)).toEqual([[]]);
    // The order is a strong key written once; the transaction took its stock (2 and 10 before).
    const stored = await strongOrders.get(results[0]!.order.id);
    expect(stored).toMatchObject({ version: '1', value: { id: results[0]!.order.id } });
    expect(await stock.get('camera')).toMatchObject({ version: '2', value: { left: 1 } });
    expect(await stock.get('record')).toMatchObject({ version: '2', value: { left: 8 } });
  });

  it('keeps what was added after the order was placed, even when the order is retried', async () => {
    const cartId = newCartId();
    const base = `/api/carts/${cartId}`;
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'mug' } });
    const press = {
      method: 'POST' as const,
      url: `${base}/checkout`,
      body: { idempotencyKey: 'keep-later-123' },
    };
    expect((await call(press)).status).toBe(201);
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'watch' } });
    const retried = (await call(press)).json as CheckoutResult;
    expect(retried.replayed).toBe(true);
    expect(retried.cart.items.map((i) => i.productId)).toEqual(['watch']);
  });
});

describe('which node serves a tab during a split', () => {
  it('keeps a pinned tab on its side (its own copy alone) and serves an "auto" tab with a quorum', async () => {
    const cartId = newCartId();
    const items = `/api/carts/${cartId}/items`;
    const split = await call({ method: 'POST', url: '/api/cluster/split', body: { isolate: 'n0' } });
    expect((split.json as ClusterView).split).toEqual([['n0'], ['n1', 'n2']]);
    try {
      const pinned = await call({
        method: 'POST',
        url: items,
        body: { productId: 'mug' },
        headers: { 'x-tessera-node': 'n0' },
      });
      expect((pinned.json as CartView).servedBy).toMatchObject({ nodeId: 'n0', degraded: true });
      const auto = await call({ method: 'POST', url: items, body: { productId: 'lamp' } });
      expect((auto.json as CartView).servedBy).toMatchObject({ asked: 'auto', degraded: false });
      expect((auto.json as CartView).servedBy.nodeId).not.toBe('n0');
      expect((auto.json as CartView).items.map((i) => i.productId)).toEqual(['lamp']);
    } finally {
      const healed = await call({ method: 'POST', url: '/api/cluster/heal', body: {} });
      expect((healed.json as ClusterView).split).toBeNull();
    }
  });
});

describe('the cart’s story', () => {
  it('tells each tab which orders and writes were its own, and which nodes the tabs are on', async () => {
    const cartId = newCartId();
    const base = `/api/carts/${cartId}`;
    const tabA = { 'x-tessera-node': 'n0', 'x-tessera-tab': 'tab-aaaaaa' };
    const tabB = { 'x-tessera-node': 'n2', 'x-tessera-tab': 'tab-bbbbbb' };
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'mug' }, headers: tabA });
    await call({ method: 'POST', url: `${base}/items`, body: { productId: 'kettle' }, headers: tabA });
    const seenByB = (await call({ method: 'GET', url: base, headers: tabB })).json as CartView;
    expect(seenByB.story.tabs.map((t) => [t.node, t.you]).sort()).toEqual([
      ['n0', false],
      ['n2', true],
    ]);
    expect(seenByB.story.steps.filter((s) => s.doneAt !== null).map((s) => s.id)).toEqual([
      'two-items',
      'two-tabs',
    ]);
    expect(seenByB.story.writes.map((w) => [w.op, w.productId, w.node, w.you])).toEqual([
      ['add', 'mug', 'n0', false],
      ['add', 'kettle', 'n0', false],
    ]);
    await call({
      method: 'POST',
      url: `${base}/checkout`,
      body: { idempotencyKey: 'story-key-1' },
      headers: tabA,
    });
    const after = (await call({ method: 'GET', url: base, headers: tabB })).json as CartView;
    expect(after.story.checkouts.map((c) => [c.items, c.node, c.you])).toEqual([[2, 'n0', false]]);
  });

  it('answers the cluster with the time it asked the nodes and one health line', async () => {
    const view = (await call({ method: 'GET', url: '/api/cluster' })).json as ClusterView;
    expect(Date.now() - Date.parse(view.observedAt)).toBeLessThan(60_000);
    expect(view.nodes.map((n) => [n.id, n.state, n.pid !== null])).toEqual([
      ['n0', 'up', true],
      ['n1', 'up', true],
      ['n2', 'up', true],
    ]);
    expect(view.links).toHaveLength(3);
    expect(['ok', 'doubt']).toContain(view.health.kind);
  });
});

describe('the launcher', () => {
  const MAIN = fileURLToPath(new URL('../dist/server/main.js', import.meta.url));

  it('confirms that Ctrl-C stopped it (problem 8)', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        ...process.env,
        TESSERA_NODES: h.cluster.nodes.map((n) => n.url).join(','),
        PORT: String(port),
        STORE_LOG: 'stdout',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    try {
      await waitFor(() => out.includes(`Tessera store: http://127.0.0.1:${port}`), 20_000, 'the store is up');
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(out).toContain('Ctrl-C: stopping the store…');
    expect(out).toContain('Stopped the store.');
  });
});
