/**
 * The client in a real browser: the main entry bundled with esbuild for the browser (which fails
 * on any Node-only import), loaded by a page in headless Debian Chromium (playwright-core, never a
 * downloaded browser), doing a put and a get against a real node.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { Resources } from '../../server/test/resources.js';
import { type PageServer, startPageServer } from './page-server.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const src = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** The page: imports the bundle, writes a cart, reads it back, provokes a coded error. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>tessera</title>
<script type="module">
import { TesseraClient, TesseraError, cart, resolvers } from '/tessera.js';
try {
  const client = new TesseraClient({ nodes: [location.origin] });
  const key = 'browser/cart-' + Math.random().toString(36).slice(2);
  await client.update(key, cart.add('apple', 2), { resolver: resolvers.cart() });
  await client.put(key, cart.add('pear')(undefined));
  const read = await client.get(key);
  const merged = await client.getValue(key, { resolver: resolvers.cart() });
  let error;
  try { await client.put(key, 1, { context: 'c1.forged' }); }
  catch (err) {
    error = { is: TesseraError.is(err, 'INVALID_CONTEXT'), instance: err instanceof TesseraError, code: err.code,
      httpStatus: err.httpStatus, status: err.status, node: err.node };
  }
  let keyError;
  try { await client.get(''); }
  catch (err) { keyError = { code: err.code, httpStatus: err.httpStatus, node: err.node }; }
  const stats = client.stats();
  window.__result = { siblings: read.siblings.length, items: cart.items(merged.value), error, keyError,
    routed: stats.ring !== undefined, requests: stats.requests, userAgent: navigator.userAgent };
} catch (err) {
  window.__result = { failed: String(err && err.stack || err) };
}
</script>`;

let cluster: TestCluster;
let pages: PageServer;
let browser: Browser;
let bundle: string;
let bundledFiles: string[];

// What started is stopped even when another part of the start failed or it timed out.
const resources = new Resources();

beforeAll(async () => {
  const [started, built] = await Promise.all([
    resources.add(startCluster(1, ['--n', '1', '--r', '1', '--w', '1']), (c) => c.destroy()),
    build({
      entryPoints: [src('../src/index.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      alias: { '@tessera/core': src('../../core/src/index.ts') },
    }),
  ]);
  cluster = started;
  bundle = built.outputFiles[0]!.text;
  bundledFiles = Object.keys(built.metafile.inputs);
  pages = await resources.add(
    startPageServer(
      {
        '/': { type: 'text/html', body: PAGE },
        '/tessera.js': { type: 'text/javascript', body: bundle },
      },
      cluster.nodes[0]!.url,
    ),
    (p) => p.close(),
  );
  browser = await resources.add(
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
    (b) => b.close(),
  );
}, 90_000);

afterAll(() => resources.stopAll());

describe('the client in headless Chromium', () => {
  it('bundles for the browser without Node-only code', () => {
    // esbuild fails a browser build on a Node built-in; undici must not even be reached.
    expect(bundledFiles.filter((f) => /undici|node_modules|^node:/.test(f))).toEqual([]);
    expect(bundledFiles.some((f) => f.endsWith('client/src/client.ts'))).toBe(true);
  });

  it('puts and gets through a bundle, merges siblings, and reports coded errors', async () => {
    const page = await browser.newPage();
    const logs: string[] = [];
    page.on('pageerror', (err) => logs.push(err.message));
    await page.goto(pages.url);
    await page.waitForFunction(() => (window as { __result?: unknown }).__result !== undefined, undefined, {
      timeout: 20_000,
    });
    const result = await page.evaluate(() => (window as { __result?: unknown }).__result);
    expect(logs).toEqual([]);
    expect(result).toMatchObject({
      siblings: 2,
      items: [
        { item: 'apple', quantity: 2 },
        { item: 'pear', quantity: 1 },
      ],
      error: {
        is: true,
        instance: true,
        code: 'INVALID_CONTEXT',
        httpStatus: 400,
        status: 400,
        node: pages.url,
      },
      // Raised by the client itself, without a round trip, with the status a node would answer.
      keyError: { code: 'INVALID_KEY', httpStatus: 400 },
      routed: false,
      userAgent: expect.stringContaining('Chrome'),
    });
    // Every call went through the page's origin to the node.
    expect(pages.proxied.filter((p) => p.startsWith('PUT /v1/kv/')).length).toBeGreaterThanOrEqual(3);
    await page.close();
  });
});
