// Takes the screenshots in docs/images/ (store-shop.png, store-cluster.png,
// store-reconciliation.png): starts a throwaway three-node cluster and the store on free ports,
// plays the paper's shopping-cart story in two headless Chromium tabs, and photographs it.
// Run after `pnpm build`: node examples/web-store/scripts/screenshots.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalNode, localNodeSpecs } from '@tessera/server/local-cluster';
import { pino } from 'pino';
import { chromium } from 'playwright-core';
import { createStore } from '../dist/server/app.js';

const OUT = fileURLToPath(new URL('../../../docs/images/', import.meta.url));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'];
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

const dir = await mkdtemp(join(tmpdir(), 'tessera-shots-'));
const specs = localNodeSpecs({
  nodes: 3,
  dir,
  httpPort: await freeBlock(3),
  peerPort: await freeBlock(3),
  extraArgs: ['--fault-injection', '--log-level', 'warn'],
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
  const tab = async (node) => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
    const page = await context.newPage();
    await page.goto(`${url}/c/${cartId}?node=${node}`);
    await page.waitForFunction(
      () => document.body.dataset.count !== undefined && document.body.dataset.count !== '',
    );
    return page;
  };
  const left = await tab('n0');
  const right = await tab('n2');
  for (const id of ['mug', 'kettle', 'headphones']) await add(left, id);
  await right.waitForSelector(tid('cart-line-headphones'));
  await left.waitForSelector(`${tid('node-n2')}[data-state="up"]`);
  await left.evaluate(() => window.scrollTo(0, 0));
  await left.screenshot({ path: join(OUT, 'store-shop.png') });

  await left.click(tid('isolate-n0'));
  await add(left, 'lamp');
  await left.click(tid('remove-kettle'));
  await left.waitForSelector(tid('cart-line-kettle'), { state: 'detached' });
  await add(right, 'fern');
  await left.waitForSelector(`${tid('node-n0')} .blocks`);
  await left.waitForFunction(() => document.querySelectorAll('.peer-down').length >= 2);
  await left.locator(tid('cluster')).screenshot({ path: join(OUT, 'store-cluster.png') });

  await left.click(tid('heal'));
  await right.waitForSelector(`${tid('reconciliation')} ${tid('version')}:nth-of-type(2)`, {
    timeout: 30_000,
  });
  await right.waitForSelector(`${tid('node-n0')}[data-state="up"]`);
  await right.locator(tid('reconciliation')).screenshot({ path: join(OUT, 'store-reconciliation.png') });
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  await app.close();
  await Promise.all(nodes.map((n) => n.stop()));
  await rm(dir, { recursive: true, force: true });
}
