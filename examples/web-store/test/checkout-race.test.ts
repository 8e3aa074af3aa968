/**
 * The last Desk lamp, two customers, one click each at the same moment, in Debian's Chromium
 * (playwright-core) against a real three-node cluster with `--strong stock,orders`: exactly one
 * order, the stock at 0 and never below, and the other tab told which item ran out, its cart kept
 * as it was, from which it can still check out the rest. And the page's two sentences on the
 * shop's two kinds of keys.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { OrdersView } from '../src/shared/api.js';
import { newCartId, storedCart } from './harness.js';
import { attr, count, text, tid, until } from './page.js';
import { addToCart, cartLine, useStoreSession } from './store-session.js';

/** Deadline for what the page shows after an action or a poll (polls run every 1.2 to 3 s). */
const SHOWN_MS = 10_000;

const s = useStoreSession();
const { errors } = s;

/** A customer of their own (own cookies) with a cart of their own. */
async function customer(): Promise<{ page: Page; cartId: string }> {
  const cartId = newCartId();
  const page = await s.open(`/c/${cartId}`, { viewport: { width: 1280, height: 900 } }, SHOWN_MS);
  return { page, cartId };
}

const line = cartLine;

const add = (page: Page, id: string): Promise<void> => addToCart(page, id, SHOWN_MS);

/** Waits until the page answered its checkout: a thank-you or a refusal. */
function answered(page: Page): Promise<void> {
  return until(
    page,
    'the checkout was answered',
    () => document.querySelector('[data-testid="checkout-note"], [data-testid="checkout-refused"]') !== null,
    SHOWN_MS,
  );
}

async function ordersOf(cartId: string): Promise<OrdersView['orders']> {
  return ((await (await fetch(`${s.h.url}/api/carts/${cartId}/orders`)).json()) as OrdersView).orders;
}

let loser: { page: Page; cartId: string };

describe('checkout of the last one, in two tabs at once', () => {
  it('explains the two kinds of keys: carts always writeable, stock and orders strong', async () => {
    const { page } = await customer();
    await text(page, `${tid('models')} [data-model="carts"]`, 'Carts are always writeable', SHOWN_MS, true);
    await text(page, `${tid('models')} [data-model="carts"]`, 'sibling versions and merged', SHOWN_MS, true);
    await text(
      page,
      `${tid('models')} [data-model="strong"]`,
      'Stock and orders are strong keys',
      SHOWN_MS,
      true,
    );
    await text(page, `${tid('models')} [data-model="strong"]`, 'all-or-nothing transaction', SHOWN_MS, true);
    await page.context().close();
  });

  it('sells the last Desk lamp once: one order, stock 0, and the other tab told which item ran out', async () => {
    const a = await customer();
    const b = await customer();
    for (const c of [a, b]) {
      await attr(c.page, tid('stock-lamp'), 'data-left', '1', SHOWN_MS);
      await text(c.page, tid('stock-lamp'), '1 left', SHOWN_MS);
      await add(c.page, 'lamp');
      await add(c.page, 'mug');
    }
    await Promise.all([a.page.click(tid('checkout')), b.page.click(tid('checkout'))]);
    await Promise.all([answered(a.page), answered(b.page)]);

    const refused = async (p: Page): Promise<boolean> => (await p.$(tid('checkout-refused'))) !== null;
    const [aRefused, bRefused] = await Promise.all([refused(a.page), refused(b.page)]);
    expect([aRefused, bRefused].sort()).toEqual([false, true]);
    const winner = aRefused ? b : a;
    loser = aRefused ? a : b;

    // The winner: thanked, one order, an empty cart.
    await attr(winner.page, tid('checkout-note'), 'data-kind', 'placed', SHOWN_MS);
    await count(winner.page, tid('order'), 1, SHOWN_MS);
    await count(winner.page, tid('cart-empty'), 1, SHOWN_MS);
    // The loser: the item named, nothing ordered, the cart as it was.
    await text(
      loser.page,
      tid('checkout-refused'),
      'Sorry, the last Desk lamp was just bought — 0 left. Nothing was ordered and your cart is as it was.',
      SHOWN_MS,
    );
    await attr(loser.page, tid('checkout-refused'), 'data-code', 'SOLD_OUT', SHOWN_MS);
    await attr(loser.page, tid('checkout-refused'), 'data-products', 'lamp', SHOWN_MS);
    for (const id of ['lamp', 'mug']) await count(loser.page, line(id), 1, SHOWN_MS);
    await count(loser.page, tid('order'), 0, SHOWN_MS);
    await count(loser.page, tid('checkout-note'), 0, SHOWN_MS);
    // Both catalogs say so.
    for (const c of [a, b]) await text(c.page, tid('stock-lamp'), 'sold out', SHOWN_MS);

    // What Tessera holds: stock 0 after exactly one sale (version 1 seeded, 2 sold), one order.
    const stock = s.h.tessera.strong<{ left: number }>('stock');
    expect(await stock.get('lamp')).toMatchObject({ version: '2', value: { left: 0 } });
    expect(await stock.get('mug')).toMatchObject({ version: '2', value: { left: 11 } });
    expect((await ordersOf(winner.cartId)).map((o) => o.lines.map((l) => l.productId))).toEqual([
      ['lamp', 'mug'],
    ]);
    expect(await ordersOf(loser.cartId)).toEqual([]);
    expect(await storedCart(s.h.tessera, loser.cartId)).toEqual([
      [
        { item: 'lamp', quantity: 1 },
        { item: 'mug', quantity: 1 },
      ],
    ]);
    await winner.page.context().close();
  });

  it('leaves the refused cart intact across a reload, and checks out the rest once the lamp is removed', async () => {
    const { page, cartId } = loser;
    await page.reload();
    for (const id of ['lamp', 'mug']) await count(page, line(id), 1, SHOWN_MS);
    await text(page, tid('stock-lamp'), 'sold out', SHOWN_MS);
    // Checking out again is refused the same way: nothing changed.
    await page.click(tid('checkout'));
    await attr(page, tid('checkout-refused'), 'data-products', 'lamp', SHOWN_MS);
    await text(page, tid('checkout-refused'), 'Desk lamp', SHOWN_MS, true);
    await page.click(tid('remove-lamp'));
    await count(page, line('lamp'), 0, SHOWN_MS);
    // Doing something about it puts the refusal away.
    await count(page, tid('checkout-refused'), 0, SHOWN_MS);
    await page.click(tid('checkout'));
    await attr(page, tid('checkout-note'), 'data-kind', 'placed', SHOWN_MS);
    await count(page, tid('order'), 1, SHOWN_MS);
    await text(page, tid('stock-mug'), '10 left', SHOWN_MS);
    expect((await ordersOf(cartId)).map((o) => o.lines.map((l) => l.productId))).toEqual([['mug']]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
