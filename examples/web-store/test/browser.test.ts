/**
 * The store in Debian's Chromium (playwright-core, never a downloaded browser), against a real
 * three-node cluster: a cart that survives a reload; the paper's shopping cart through a split
 * with two browsers on two sides; checkout pressed twice; a node killed under a tab.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterView, OrdersView } from '../src/shared/api.js';
import { CHROMIUM_ARGS, type Harness, newCartId, startHarness, storedCart } from './harness.js';
import { attr, count, text, tid } from './page.js';

/** Deadline for what the page shows after an action or a poll (polls run every 1.2 s). */
const SHOWN_MS = 10_000;
/** Deadline for a healed cluster's replicas to bring the versions together. */
const CONVERGED_MS = 25_000;

let h: Harness;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  [h, browser] = await Promise.all([
    startHarness(),
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(path: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${h.url}${path}`);
  await attr(page, 'body', 'data-count', '', SHOWN_MS, true);
  return page;
}

const line = (id: string): string => tid(`cart-line-${id}`);

/** Clicks "Add" and waits until the page shows the cart with it. */
async function add(page: Page, id: string): Promise<void> {
  const before = (await page.getAttribute('body', 'data-count')) ?? '';
  await page.click(tid(`add-${id}`));
  await attr(page, 'body', 'data-count', before, SHOWN_MS, true);
  await count(page, line(id), 1, SHOWN_MS);
}

async function expectItems(
  page: Page,
  present: string[],
  absent: string[],
  timeout = SHOWN_MS,
): Promise<void> {
  for (const id of present) await count(page, line(id), 1, timeout);
  for (const id of absent) await count(page, line(id), 0, timeout);
}

async function api<T>(path: string): Promise<T> {
  return (await (await fetch(`${h.url}${path}`)).json()) as T;
}

describe('the web store in Chromium', () => {
  it('keeps a visitor’s cart across a reload and a new visit', async () => {
    const page = await open('/');
    expect(page.url()).toMatch(/\/c\/[A-Za-z0-9_-]{6,40}$/);
    const cartUrl = page.url();
    await add(page, 'mug');
    await add(page, 'notebook');
    await page.click(tid('inc-mug'));
    await text(page, tid('qty-mug'), '2', SHOWN_MS);

    await page.reload();
    await expectItems(page, ['mug', 'notebook'], []);
    await text(page, tid('qty-mug'), '2', SHOWN_MS);
    await text(page, tid('cart-total'), '$37.50', SHOWN_MS);
    // The cookie brings the visitor back to the same cart.
    await page.goto(`${h.url}/`);
    expect(page.url()).toBe(cartUrl);
    await expectItems(page, ['mug', 'notebook'], []);
    await page.context().close();
  });

  it('merges a cart edited on both sides of a split: every add kept, the removal too', async () => {
    const cartId = newCartId();
    const left = await open(`/c/${cartId}?node=n0`);
    const right = await open(`/c/${cartId}?node=n2`);
    await attr(left, tid('pick-n0'), 'aria-checked', 'true', SHOWN_MS);
    await attr(right, tid('pick-n2'), 'aria-checked', 'true', SHOWN_MS);
    await add(left, 'mug');
    await add(left, 'kettle');
    await expectItems(right, ['mug', 'kettle'], []);

    // Split: n0 alone on one side, n1 and n2 on the other.
    await left.click(tid('isolate-n0'));
    await attr(left, '.cluster-inner', 'data-split', 'yes', SHOWN_MS);
    await add(left, 'lamp');
    await left.click(tid('remove-kettle'));
    await count(left, line('kettle'), 0, SHOWN_MS);
    await attr(left, tid('served-by'), 'data-degraded', 'true', SHOWN_MS);
    await add(right, 'fern');
    // The sides really are apart: each sees only its own changes.
    await expectItems(left, ['mug', 'lamp'], ['fern', 'kettle']);
    await expectItems(right, ['mug', 'kettle', 'fern'], ['lamp']);

    await left.click(tid('heal'));
    await attr(left, '.cluster-inner', 'data-split', 'no', SHOWN_MS);
    for (const page of [left, right]) {
      await expectItems(page, ['mug', 'lamp', 'fern'], ['kettle'], CONVERGED_MS);
      // The reconciliation view shows both versions and the merge, with the removal kept.
      const view = tid('reconciliation');
      await count(page, `${view} ${tid('version')}`, 2, CONVERGED_MS);
      await count(page, `${view} ${tid('merged')} [data-product=kettle][data-change=removed]`, 1, SHOWN_MS);
      await count(page, `${view} [data-change=added][data-product=lamp]`, 1, SHOWN_MS);
      await count(page, `${view} [data-change=added][data-product=fern]`, 1, SHOWN_MS);
    }
    expect(await storedCart(h.tessera, cartId)).toHaveLength(2);

    // Keeping the merge writes it with the read's context: one version again, in both browsers.
    await right.click(tid('resolve'));
    for (const page of [left, right]) {
      await count(page, tid('reconciliation'), 0, SHOWN_MS);
      await count(page, tid('last-reconciliation'), 1, SHOWN_MS);
      await expectItems(page, ['mug', 'lamp', 'fern'], ['kettle']);
    }
    expect(await storedCart(h.tessera, cartId)).toEqual([
      [
        { item: 'fern', quantity: 1 },
        { item: 'lamp', quantity: 1 },
        { item: 'mug', quantity: 1 },
      ],
    ]);
    await Promise.all([left.context().close(), right.context().close()]);
  });

  it('places one order when checkout is pressed twice', async () => {
    const cartId = newCartId();
    const page = await open(`/c/${cartId}`);
    await add(page, 'camera');
    await add(page, 'record');
    const presses: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/checkout')) presses.push(r.postData() ?? '');
    });
    await page.dblclick(tid('checkout'));
    await count(page, tid('order'), 1, SHOWN_MS);
    await count(page, tid('cart-empty'), 1, SHOWN_MS);
    await count(page, tid('checkout-note'), 1, SHOWN_MS);
    // Both presses reached the store, with the same idempotency key.
    expect(presses).toHaveLength(2);
    expect(new Set(presses).size).toBe(1);
    await page.reload();
    await count(page, tid('order'), 1, SHOWN_MS);
    const { orders } = await api<OrdersView>(`/api/carts/${cartId}/orders`);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.lines.map((l) => l.productId)).toEqual(['camera', 'record']);
    await page.context().close();
  });

  it('keeps serving a tab whose node is killed, and restarts the node from the panel', async () => {
    const cartId = newCartId();
    const page = await open(`/c/${cartId}?node=n1`);
    await add(page, 'watch');
    await h.cluster.nodes[1]!.kill();
    await add(page, 'backpack');
    await attr(page, tid('served-by'), 'data-node', 'n1', SHOWN_MS, true);
    await text(page, tid('served-by'), 'n1 is down', SHOWN_MS, true);
    await page.reload();
    await expectItems(page, ['watch', 'backpack'], []);
    await attr(page, tid('node-n1'), 'data-state', 'stopped', SHOWN_MS);

    await page.click(tid('start-n1'));
    await attr(page, tid('node-n1'), 'data-state', 'up', 30_000);
    await add(page, 'fern');
    await attr(page, tid('served-by'), 'data-node', 'n1', SHOWN_MS);
    const cluster = await api<ClusterView>('/api/cluster');
    expect(cluster.nodes.map((n) => n.reachable)).toEqual([true, true, true]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
