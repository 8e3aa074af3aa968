/**
 * The operators' ring page (/ui) in headless Chromium, on a node with tokens: without a token it
 * says that the node asks for one and how to give it (not that the node is not answering); with
 * /ui#token=… it draws the members.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode, localNodeSpecs } from '../src/cli/local-cluster.js';
import { DIST_CLI, freePortBlock } from './helpers.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];
const SHOWN_MS = 10_000;

let dir: string;
let node: LocalNode;
let browser: Browser;
const clientToken = randomBytes(24).toString('hex');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-ui-'));
  await writeFile(join(dir, 'client.token'), clientToken);
  await writeFile(join(dir, 'admin.token'), randomBytes(24).toString('hex'));
  const base = await freePortBlock(2);
  const tokens = ['--token-file', join(dir, 'client.token'), '--admin-token-file', join(dir, 'admin.token')];
  const [spec] = localNodeSpecs({ nodes: 1, dir, httpPort: base, peerPort: base + 1, extraArgs: tokens });
  node = new LocalNode(spec!, DIST_CLI);
  await node.start();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await node?.kill();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('/ui on a node with tokens', () => {
  it('says the node asks for a token and how to give it, then draws the members once given one', async () => {
    const page = await browser.newPage();
    await page.goto(`${node.url}/ui`);
    const banner = page.locator('#banner');
    await banner.filter({ hasText: 'asks for a token' }).waitFor({ timeout: SHOWN_MS });
    expect(await banner.textContent()).toContain('/ui#token=');
    expect(await banner.textContent()).not.toContain('not answering');

    await page.goto(`${node.url}/ui#token=${clientToken}`);
    await page.reload();
    await page.locator('#nodes tr[data-id="n0"]').waitFor({ timeout: SHOWN_MS });
    expect(await banner.isVisible()).toBe(false);
    await page.close();
  });
});
