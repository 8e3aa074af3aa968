/**
 * What every browser test file of the store starts from: the store on a real three-node cluster
 * and Debian's Chromium, started before the file's tests and closed after them, and the page
 * errors of every page it opened. Also the cart's own steps as a visitor takes them.
 */
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { Resources } from '../../../packages/server/test/resources.js';
import { CHROMIUM_ARGS, type Harness, startHarness } from './harness.js';
import { attr, count, tid } from './page.js';

/** Deadline for starting the cluster, the store and the browser. */
const STARTED_MS = 60_000;

export class StoreSession {
  /** Set before the file's first test runs. */
  h!: Harness;
  browser!: Browser;
  /** Uncaught errors of every page opened through this session (each test file expects none). */
  readonly errors: string[] = [];

  /** A page of its own (own cookies) at `path`, once the store has drawn it. */
  async open(path: string, context: BrowserContextOptions, shownMs: number): Promise<Page> {
    const page = await (await this.browser.newContext(context)).newPage();
    page.on('pageerror', (err) => this.errors.push(err.message));
    await page.goto(`${this.h.url}${path}`);
    await attr(page, 'body', 'data-count', '', shownMs, true);
    return page;
  }
}

/** Registers the file's beforeAll and afterAll; call it once, at the top of a test file. */
export function useStoreSession(): StoreSession {
  const session = new StoreSession();
  // Whichever of the two started is stopped, even when the other failed or the start timed out.
  const resources = new Resources();
  beforeAll(async () => {
    [session.h, session.browser] = await Promise.all([
      resources.add(startHarness(), (h) => h.close()),
      resources.add(chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }), (b) =>
        b.close(),
      ),
    ]);
  }, STARTED_MS);
  afterAll(() => resources.stopAll());
  return session;
}

/** The cart's line for a product. */
export const cartLine = (id: string): string => tid(`cart-line-${id}`);

/** Clicks "Add" and waits until the page shows the cart with it. */
export async function addToCart(page: Page, id: string, shownMs: number): Promise<void> {
  const before = (await page.getAttribute('body', 'data-count')) ?? '';
  await page.click(tid(`add-${id}`));
  await attr(page, 'body', 'data-count', before, shownMs, true);
  await count(page, cartLine(id), 1, shownMs);
}

/** The cart shows every product of `present` and none of `absent`. */
export async function expectCart(
  page: Page,
  present: readonly string[],
  absent: readonly string[],
  timeout: number,
): Promise<void> {
  for (const id of present) await count(page, cartLine(id), 1, timeout);
  for (const id of absent) await count(page, cartLine(id), 0, timeout);
}
