// Takes the screenshots in docs/images/store-*.png: starts a throwaway three-node cluster and the
// store on free ports, plays the paper's shopping-cart story in two headless Chromium tabs (one at
// 1280x800 on n0, one a 390x844 phone on n2), and photographs it at both sizes; then split-screen
// with every replica's copy during a split, and the story player narrating.
// Run after `pnpm build`: node examples/web-store/scripts/screenshots.mjs
// OUT=dir writes somewhere else; REVIEW=1 also writes full-page pictures of every stage.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalNode, localNodeSpecs } from '@tessera/server/local-cluster';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { createStore } from '../dist/server/app.js';

const OUT = process.env.OUT ?? fileURLToPath(new URL('../../../docs/images/', import.meta.url));
const REVIEW = process.env.REVIEW === '1';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const tid = (id) => `[data-testid="${id}"]`;

function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freeBlock(count) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free ports');
}

async function add(page, id) {
  const before = await page.getAttribute('body', 'data-count');
  await page.click(tid(`add-${id}`));
  await page.waitForFunction((b) => document.body.dataset.count !== b, before);
}

const stepDone = (page, n) => page.waitForSelector(`${tid(`guide-step-${n}`)}[data-done="true"]`);

/** REVIEW=1: the whole page, in pieces a viewer can show at full size. */
async function review(page, name) {
  if (!REVIEW) return;
  const { width } = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  const piece = width < 600 ? 1100 : 1600;
  for (let y = 0, i = 1; y < height; y += piece, i++) {
    const clip = { x: 0, y, width, height: Math.min(piece, height - y) };
    await page.screenshot({ path: join(OUT, `review-${name}-${i}.png`), fullPage: true, clip });
  }
}

/** Scrolls until the element's top rests just under the header (smooth scrolling has ended). */
async function settled(page, selector) {
  await page.waitForFunction(
    (sel) =>
      new Promise((resolve) => {
        const top = () => document.querySelector(sel)?.getBoundingClientRect().top;
        const first = top();
        setTimeout(() => resolve(first !== undefined && first === top() && first >= 0 && first < 120), 150);
      }),
    selector,
  );
}

await mkdir(OUT, { recursive: true });
const dir = await mkdtemp(join(tmpdir(), 'tessera-shots-'));
const specs = localNodeSpecs({
  nodes: 3,
  dir,
  httpPort: await freeBlock(3),
  peerPort: await freeBlock(3),
  extraArgs: ['--fault-injection', '--strong', 'stock,orders', '--log-level', 'warn'],
});
const nodes = specs.map((s) => new LocalNode(s));
for (const node of nodes) await node.start();
// Every node must know every other before the first write.
for (const deadline = Date.now() + 20_000; ; ) {
  const views = await Promise.all(nodes.map((n) => fetch(`${n.url}/v1/status`).then((r) => r.json())));
  if (views.every((v) => v.members.length === nodes.length)) break;
  if (Date.now() > deadline) throw new Error('the nodes did not find each other');
  await new Promise((r) => setTimeout(r, 100));
}
const app = await createStore({
  nodes: nodes.map((n) => ({ id: n.spec.nodeId, url: n.url, process: n })),
  logger: pino({ level: 'silent' }),
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
try {
  const cartId = `demo${Date.now().toString(36)}`;
  const tab = async (node, viewport) => {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${url}/c/${cartId}?node=${node}`);
    await page.waitForFunction(
      () => document.body.dataset.count !== undefined && document.body.dataset.count !== '',
    );
    return page;
  };
  const left = await tab('n0', DESKTOP);
  for (const id of ['mug', 'kettle', 'headphones']) await add(left, id);
  const right = await tab('n2', PHONE);
  await right.waitForSelector(tid('cart-line-headphones'));
  await stepDone(left, 2);
  await left.waitForSelector(`${tid('cluster-health')}[data-kind="ok"]`, { timeout: 20_000 });
  await left.evaluate(() => window.scrollTo(0, 0));
  await left.screenshot({ path: join(OUT, 'store-shop.png') });
  await right.evaluate(() => window.scrollTo(0, 0));
  await right.screenshot({ path: join(OUT, 'store-phone.png') });
  await review(left, '1-desktop-start');
  await review(right, '1-phone-start');

  await left.click(tid('guide-isolate'));
  await stepDone(left, 3);
  await add(left, 'lamp');
  await left.click(tid('remove-kettle'));
  await left.waitForSelector(tid('cart-line-kettle'), { state: 'detached' });
  await left.click(tid('remove-mug'));
  await left.waitForSelector(tid('cart-line-mug'), { state: 'detached' });
  await add(right, 'fern');
  await right.click(tid('inc-mug'));
  await right.waitForSelector(`${tid('qty-mug')}:text("2")`);
  await stepDone(left, 4);
  // Element pictures: the sticky header must not cover the element's top.
  await left.addStyleTag({ content: '.topbar { position: static }' });
  await left.waitForSelector(`${tid('node-n0')} .blocks`);
  await left.waitForSelector(`${tid('node-n1')} [data-peer="n0"][data-lagging="false"]`, { timeout: 20_000 });
  await left.locator(tid('cluster')).screenshot({ path: join(OUT, 'store-cluster.png') });
  await review(left, '2-desktop-split');
  await review(right, '2-phone-split');

  await left.click(tid('heal'));
  for (const page of [left, right]) {
    await page.waitForSelector(`${tid('reconciliation')} ${tid('version')}:nth-of-type(2)`, {
      timeout: 30_000,
    });
  }
  await stepDone(left, 5);
  await left.waitForSelector(`${tid('node-n0')}[data-state="up"]`);
  await left.locator(tid('reconciliation')).screenshot({ path: join(OUT, 'store-reconciliation.png') });
  await right.click(tid('versions-alert'));
  await settled(right, tid('reconciliation'));
  await right.screenshot({ path: join(OUT, 'store-phone-merge.png') });
  await review(left, '3-desktop-merged');
  await review(right, '3-phone-merged');
  // Split-screen on a fresh cart: the two halves and every node's copy, diverged during a split.
  await right.close();
  const split = await (await browser.newContext({ viewport: DESKTOP, deviceScaleFactor: 1 })).newPage();
  await split.goto(`${url}/c/${cartId}x?view=split`);
  await split.waitForSelector(`${tid('pane-right')}[data-node="n2"]`);
  await split.click(tid('pane-left-add-mug'));
  await split.click(tid('pane-left-add-kettle'));
  await split.waitForSelector(`${tid('pane-right')} [data-product="kettle"]`);
  await split.waitForSelector('.replicas-inner[data-agreement="same"]');
  await split.click(tid('isolate-n0'));
  await split.waitForSelector('.cluster-inner[data-split="yes"]');
  await split.click(tid('pane-left-add-lamp'));
  await split.waitForSelector(`${tid('pane-left')} [data-product="lamp"]`);
  await split.click(tid('pane-left-remove-kettle'));
  await split.waitForSelector(`${tid('pane-left')} [data-product="kettle"]`, { state: 'detached' });
  await split.click(tid('pane-right-add-fern'));
  await split.click(tid('pane-right-inc-mug'));
  await split.waitForSelector(`${tid('pane-right')} [data-product="mug"][data-qty="2"]`);
  await split.waitForSelector('.replicas-inner[data-agreement="diverged"]');
  await split.waitForSelector(`${tid('replica-n0')} [data-product="lamp"]`);
  await split.screenshot({ path: join(OUT, 'store-split-screen.png') });
  const phoneSplit = await (await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 })).newPage();
  await phoneSplit.goto(`${url}/c/${cartId}x?view=split`);
  await phoneSplit.waitForSelector(`${tid('pane-right')} [data-product="fern"]`);
  await phoneSplit.waitForSelector('.replicas-inner[data-agreement="diverged"]');
  await phoneSplit.screenshot({ path: join(OUT, 'store-phone-split.png') });
  await review(split, '5-split-screen');
  await review(phoneSplit, '5-phone-split');
  await split.click(tid('heal'));
  await split.waitForSelector('.replicas-inner[data-agreement="same"]', { timeout: 30_000 });
  await review(split, '6-split-healed');

  // The story player, at its normal pace, photographed when the replicas have diverged; then Stop.
  await split.click(tid('story-play'));
  await split.waitForFunction(
    () =>
      document
        .querySelector('[data-testid="narration"]')
        ?.textContent?.startsWith('The replicas have diverged'),
    undefined,
    { timeout: 90_000 },
  );
  await split.evaluate(() => window.scrollTo(0, 0));
  await split.screenshot({ path: join(OUT, 'store-story.png') });
  await split.click(tid('story-stop'));
  await split.waitForSelector(`${tid('narrator')}[data-status="stopped"]`, { timeout: 30_000 });
  if (REVIEW) {
    // The two ends: a projector and the narrowest phone.
    await left.setViewportSize({ width: 1920, height: 1080 });
    await phoneSplit.setViewportSize({ width: 360, height: 740 });
    await review(left, '4-projector');
    await review(phoneSplit, '4-phone-360');
  }
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await app.close();
  await Promise.all(nodes.map((n) => n.stop()));
  await rm(dir, { recursive: true, force: true });
}
