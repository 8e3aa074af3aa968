/**
 * Stock in strong keys and checkout as one transaction, at the API level: one snapshot of every
 * product's stock, the last item sold once when two carts race, a cart that wants more than is left
 * refused with nothing changed, and checkout refused through a node cut off from the majority.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../../packages/server/test/resources.js';
import type { ErrorBody, Order, OrdersView, SoldOutDetails, StockView } from '../src/shared/api.js';
import { type Call, callApp } from './api-calls.js';
import { type Harness, newCartId, startHarness, storedCart } from './harness.js';

let h: Harness;
const stock = {
  get: (id: string) => h.tessera.strong<{ left: number; lastSoldAt: string | null }>('stock').get(id),
};
const _strongOrders = { get: (id: string) => h.tessera.strong<Order>('orders').get(id) };
const call = (c: Call) => callApp(h, c);

// Stopped even when the start timed out part-way (it is stopped once it ends).
const resources = new Resources();
beforeAll(async () => {
  h = await resources.add(startHarness(), (started) => started.close());
}, 60_000);

afterAll(() => resources.stopAll());

describe('stock: strong keys, one transaction per checkout', () => {
  /** A new cart holding these items, and the path of its API. */
  async function cartWith(items: Record<string, number>): Promise<string> {
    const base = `/api/carts/${newCartId()}`;
    for (const [productId, quantity] of Object.entries(items)) {
      expect(
        (await call({ method: 'POST', url: `${base}/items`, body: { productId, quantity } })).status,
      ).toBe(200);
    }
    return base;
  }
  const checkout = (base: string, key: string, headers?: Record<string, string>) =>
    call({
      method: 'POST',
      url: `${base}/checkout`,
      body: { idempotencyKey: key },
      ...(headers && { headers }),
    });
  const cartIdOf = (base: string): string => base.slice('/api/carts/'.length);

  it('answers every product’s stock from one snapshot, stocked once at start', async () => {
    const { status, json } = await call({ method: 'GET', url: '/api/stock' });
    expect(status).toBe(200);
    const view = json as StockView;
    expect(view.stock).toHaveLength(10);
    expect(view.stock.find((s) => s.productId === 'lamp')).toEqual({ productId: 'lamp', left: 1 });
    expect(await stock.get('lamp')).toEqual({ value: { left: 1, lastSoldAt: null }, version: '1' });
  });

  it('never oversells the last Desk lamp: two carts check out at once, one wins, the other is told and keeps its cart', async () => {
    const [a, b] = await Promise.all([cartWith({ lamp: 1, mug: 1 }), cartWith({ lamp: 1 })]);
    const before = await storedCart(h.tessera, cartIdOf(b));
    const [ra, rb] = await Promise.all([checkout(a, 'race-lamp-a'), checkout(b, 'race-lamp-b')]);
    expect([ra.status, rb.status].sort()).toEqual([201, 409]);
    const [won, lost] = ra.status === 201 ? [a, b] : [b, a];
    const refusal = (ra.status === 409 ? ra.json : rb.json) as ErrorBody;
    expect(refusal.error.code).toBe('SOLD_OUT');
    expect(refusal.error.message).toBe(
      'Sorry, the last Desk lamp was just bought — 0 left. Nothing was ordered and your cart is as it was.',
    );
    expect((refusal.error.details as SoldOutDetails).shortages).toEqual([
      { productId: 'lamp', name: 'Desk lamp', wanted: 1, left: 0, justBought: true },
    ]);
    // Stock 0, never below; exactly one order, listed under the winner's cart only.
    expect(await stock.get('lamp')).toMatchObject({ version: '2', value: { left: 0 } });
    const listed = async (base: string) =>
      ((await call({ method: 'GET', url: `${base}/orders` })).json as OrdersView).orders;
    expect((await listed(won)).map((o) => o.lines.find((l) => l.productId === 'lamp')?.quantity)).toEqual([
      1,
    ]);
    expect(await listed(lost)).toEqual([]);
    // The loser's cart is as it was (b's, or a's with its mug too).
    if (lost === b) expect(await storedCart(h.tessera, cartIdOf(b))).toEqual(before);
    else expect((await storedCart(h.tessera, cartIdOf(a)))[0]).toHaveLength(2);
  });

  it('refuses a cart that wants more than is left, naming the item, and changes nothing stored', async () => {
    const base = await cartWith({ headphones: 4, notebook: 1 });
    const before = await storedCart(h.tessera, cartIdOf(base));
    for (let i = 0; i < 2; i++) {
      const { status, json } = await checkout(base, 'too-many-phones');
      expect(status).toBe(409);
      expect((json as ErrorBody).error).toMatchObject({
        code: 'SOLD_OUT',
        message:
          'Sorry, only 3 Studio headphones left, your cart has 4. Nothing was ordered and your cart is as it was.',
      });
    }
    expect(await storedCart(h.tessera, cartIdOf(base))).toEqual(before);
    expect(await stock.get('headphones')).toEqual({ value: { left: 3, lastSoldAt: null }, version: '1' });
    expect(await stock.get('notebook')).toMatchObject({ version: '1', value: { left: 20 } });
    expect(((await call({ method: 'GET', url: `${base}/orders` })).json as OrdersView).orders).toEqual([]);
  });

  it('during a split, refuses checkout through the cut-off node and keeps the cart; an "auto" tab checks out', async () => {
    const pinned = await cartWith({ kettle: 1 });
    const auto = await cartWith({ kettle: 1 });
    const before = await storedCart(h.tessera, cartIdOf(pinned));
    await call({ method: 'POST', url: '/api/cluster/split', body: { isolate: 'n0' } });
    try {
      const refused = await checkout(pinned, 'split-kettle-1', { 'x-tessera-node': 'n0' });
      expect(refused.status).toBe(503);
      expect((refused.json as ErrorBody).error.code).toBe('STRONG_UNAVAILABLE');
      expect((refused.json as ErrorBody).error.message).toContain('n0 cannot reach a majority');
      const placed = await checkout(auto, 'split-kettle-2');
      expect(placed.status).toBe(201);
    } finally {
      await call({ method: 'POST', url: '/api/cluster/heal', body: {} });
    }
    expect(await storedCart(h.tessera, cartIdOf(pinned))).toEqual(before);
    expect(await stock.get('kettle')).toMatchObject({ value: { left: 5 } });
  });
});
