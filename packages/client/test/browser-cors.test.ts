/**
 * The browser path without a proxy: pages in headless Debian Chromium (playwright-core) call a
 * real three-node cluster directly, on other origins, with CORS from `--cors-origin`. A page of an
 * allowed origin reads and writes (routing on, to the nodes it lists), a read of a missing key
 * logs nothing in the console, and the keys `.` and `..` work; a page of an origin the nodes do
 * not allow gets NODE_UNREACHABLE with maybeApplied false, and its write never reaches a node.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { Resources } from '../../server/test/resources.js';

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

/** An origin serving one page (its script given by the test) and the client bundle; nothing else. */
interface Origin {
  readonly url: string;
  script: string;
  close(): Promise<void>;
}

async function startOrigin(bundle: string): Promise<Origin> {
  const origin = { script: '' } as Origin & { script: string };
  const server: Server = createServer((req, res) => {
    if (req.url === '/tessera.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    } else if (req.url === '/') {
      const html = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>t</title><script type="module">${origin.script}</script>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(origin, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** What a page shows of failed loads: console messages, log entries and HTTP error answers. */
async function watch(page: Page) {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') seen.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) seen.push(`response ${r.status()} ${r.url()}`);
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Log.enable');
  cdp.on('Log.entryAdded', (e: { entry: { level: string; text: string } }) => {
    if (e.entry.level === 'error' || e.entry.level === 'warning')
      seen.push(`log ${e.entry.level}: ${e.entry.text}`);
  });
  return seen;
}

async function run(page: Page, origin: Origin, script: string): Promise<Record<string, unknown>> {
  origin.script = `
import { TesseraClient, TesseraError } from '/tessera.js';
const NODES = ${JSON.stringify(cluster.nodes.map((n) => n.url))};
try { window.__result = await (async () => { ${script} })(); }
catch (err) { window.__result = { failed: String(err && err.stack || err), code: err && err.code }; }`;
  await page.goto(origin.url);
  await page.waitForFunction(() => (window as { __result?: unknown }).__result !== undefined, undefined, {
    timeout: 30_000,
  });
  return (await page.evaluate(() => (window as { __result?: unknown }).__result)) as Record<string, unknown>;
}

let cluster: TestCluster;
let allowed: Origin;
let refused: Origin;
let browser: Browser;

// What started is stopped even when a later part of the start failed or it timed out.
const resources = new Resources();

beforeAll(async () => {
  const built = await build({
    entryPoints: [src('../src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    alias: { '@tessera/core': src('../../core/src/index.ts') },
  });
  const bundle = built.outputFiles[0]!.text;
  allowed = await resources.add(startOrigin(bundle), (o) => o.close());
  refused = await resources.add(startOrigin(bundle), (o) => o.close());
  // The nodes allow the first page's origin, and only it: no proxy between page and nodes.
  cluster = await resources.add(startCluster(3, ['--cors-origin', allowed.url]), (c) => c.destroy());
  browser = await resources.add(
    chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
    (b) => b.close(),
  );
}, 90_000);

afterAll(() => resources.stopAll());

describe('a page calling the nodes directly, with --cors-origin', () => {
  it('reads and writes with routing on; a missing key logs nothing; `.` and `..` work', async () => {
    const page = await browser.newPage();
    const seen = await watch(page);
    const result = await run(
      page,
      allowed,
      `
      const client = new TesseraClient({ nodes: NODES, routing: true });
      const run = Math.random().toString(36).slice(2);
      const missing = await client.get('browser/missing-' + run);
      const gone = await client.delete('browser/missing-' + run);
      const key = 'browser/cors-' + run;
      const { context } = await client.put(key, { n: 1 });
      await client.put(key, { n: 2 }, { context });
      const read = await client.get(key);
      const updated = await client.update(key, (v) => ({ n: v.n + 1 }));
      const keys = {};
      for (const k of ['.', '..', '%', '/', '%2E', '🧩/..']) {
        await client.put(k, k + run);
        keys[k] = (await client.get(k)).siblings.includes(k + run);
      }
      window.client = client;
      window.key = key;
      const stats = client.stats();
      // Only the first node listed: routing on, but calls go only to it.
      const one = new TesseraClient({ nodes: [NODES[0]], routing: true });
      for (let i = 0; i < 10; i++) await one.put('browser/one-' + i + run, i);
      return {
        missing: missing.siblings.length, gone, read: read.siblings, updated: updated.value, keys,
        routed: stats.ring !== undefined, byRole: stats.byRole, byNode: stats.byNode, oneByNode: one.stats().byNode,
      };`,
    );
    expect(result.failed).toBeUndefined();
    expect(seen).toEqual([]);
    expect(result).toMatchObject({
      missing: 0,
      gone: { found: false },
      read: [{ n: 2 }],
      updated: { n: 3 },
      keys: { '.': true, '..': true, '%': true, '/': true, '%2E': true, '🧩/..': true },
      routed: true,
      oneByNode: { n0: 10 },
    });
    expect((result.byRole as { replica: number }).replica).toBeGreaterThan(10);
    expect(Object.keys(result.byNode as object).sort()).toEqual(['n0', 'n1', 'n2']);

    // A node's coded error is readable across origins (and, an error answer, logged by the browser).
    const error = await page.evaluate(async () => {
      const w = window as unknown as {
        client: { put(k: string, v: unknown, o: object): Promise<unknown> };
        key: string;
      };
      try {
        await w.client.put(w.key, 1, { context: 'c1.forged' });
        return undefined;
      } catch (err) {
        const e = err as { code: string; httpStatus: number; node: string };
        return { code: e.code, httpStatus: e.httpStatus, node: e.node };
      }
    });
    expect(error).toMatchObject({
      code: 'INVALID_CONTEXT',
      httpStatus: 400,
      node: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/),
    });
    // Control: the watch does see a failed load, so the empty list above means something.
    await page.evaluate(async (url) => {
      await fetch(`${url}/v1/kv/browser-control-never-written`);
    }, cluster.nodes[0]!.url);
    await expect.poll(() => seen.some((s) => s.includes('404'))).toBe(true);
    await page.close();
  });

  it('a page of an origin the nodes do not allow: NODE_UNREACHABLE, maybeApplied false, nothing written', async () => {
    const page = await browser.newPage();
    const key = `browser/refused-${Date.now()}`;
    const result = await run(
      page,
      refused,
      `
      const client = new TesseraClient({ nodes: [NODES[0]], retries: 0 });
      const failures = {};
      for (const [name, call] of [
        ['get', () => client.get(${JSON.stringify(key)})],
        ['put', () => client.put(${JSON.stringify(key)}, 'refused')],
        ['delete', () => client.delete(${JSON.stringify(key)})],
      ]) {
        try { await call(); failures[name] = 'succeeded'; }
        catch (err) { failures[name] = { code: err.code, maybeApplied: err.maybeApplied, is: TesseraError.is(err), message: err.message }; }
      }
      return failures;`,
    );
    for (const name of ['get', 'put', 'delete']) {
      expect(result[name], name).toMatchObject({ code: 'NODE_UNREACHABLE', maybeApplied: false, is: true });
    }
    expect((result.put as { message: string }).message).toContain(`--cors-origin ${refused.url}`);
    // Nothing reached the node: the key has no value on any replica.
    for (const node of cluster.nodes) {
      const local = await fetch(`${node.url}/v1/kv/${encodeURIComponent(key)}?local=true&missing=ok`);
      expect(((await local.json()) as { siblings: unknown[] }).siblings).toEqual([]);
    }
    await page.close();
  });
});
