/** Waiting on what a page shows, with deadlines (playwright-core has no `expect`). */
import type { Page } from 'playwright-core';

/** The CSS selector of a `data-testid`. */
export const tid = (id: string): string => `[data-testid="${id}"]`;

const POLL_MS = 50;

async function withDeadline(
  page: Page,
  what: string,
  timeout: number,
  wait: () => Promise<unknown>,
): Promise<void> {
  try {
    await wait();
  } catch (err) {
    throw new Error(`timed out after ${timeout} ms waiting until ${what} (${page.url()})`, { cause: err });
  }
}

export function count(page: Page, selector: string, n: number, timeout: number): Promise<void> {
  return withDeadline(page, `${n} × ${selector}`, timeout, () =>
    page.waitForFunction(
      (a) => document.querySelectorAll(a.selector).length === a.n,
      { selector, n },
      {
        timeout,
        polling: POLL_MS,
      },
    ),
  );
}

export function text(
  page: Page,
  selector: string,
  expected: string,
  timeout: number,
  contains = false,
): Promise<void> {
  return withDeadline(page, `${selector} ${contains ? 'contains' : 'reads'} "${expected}"`, timeout, () =>
    page.waitForFunction(
      (a) => {
        const t = document.querySelector(a.selector)?.textContent?.trim();
        return t !== undefined && (a.contains ? t.includes(a.expected) : t === a.expected);
      },
      { selector, expected, contains },
      { timeout, polling: POLL_MS },
    ),
  );
}

export function attr(
  page: Page,
  selector: string,
  name: string,
  value: string,
  timeout: number,
  not = false,
): Promise<void> {
  return withDeadline(page, `${selector} has ${name}${not ? ' ≠ ' : ' = '}"${value}"`, timeout, () =>
    page.waitForFunction(
      (a) => {
        const v = document.querySelector(a.selector)?.getAttribute(a.name);
        return v !== undefined && v !== null && (v === a.value) !== a.not;
      },
      { selector, name, value, not },
      { timeout, polling: POLL_MS },
    ),
  );
}

/** Waits until `fn`, run in the page, returns true. */
export function until(page: Page, what: string, fn: () => boolean, timeout: number): Promise<void> {
  return withDeadline(page, what, timeout, () =>
    page.waitForFunction(fn, undefined, { timeout, polling: POLL_MS }),
  );
}

/** Where a section scrolled to from the header must land: its top within this band of the window. */
const UNDER_HEADER_PX = 140;

/**
 * Waits until the element's top is in view just under the header (what the header's buttons
 * scroll to); on a timeout, the error says where it was instead.
 */
export async function inViewUnderHeader(
  page: Page,
  selector: string,
  what: string,
  timeout: number,
): Promise<void> {
  try {
    await page.waitForFunction(
      (a) => {
        const top = document.querySelector(a.selector)?.getBoundingClientRect().top ?? -1;
        return top >= 0 && top < a.band;
      },
      { selector, band: UNDER_HEADER_PX },
      { timeout, polling: POLL_MS },
    );
  } catch (err) {
    const top = await page.evaluate(
      (sel) => document.querySelector(sel)?.getBoundingClientRect().top,
      selector,
    );
    const at = top === undefined ? 'not on the page' : `at ${Math.round(top)} px`;
    throw new Error(
      `timed out after ${timeout} ms waiting until ${what} is in view under the header (0-${UNDER_HEADER_PX} px): ${at} (${page.url()})`,
      { cause: err },
    );
  }
}

/** An element's box in the viewport (scrolls nothing). */
export async function box(
  page: Page,
  selector: string,
): Promise<{ top: number; bottom: number; left: number; right: number; width: number; height: number }> {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
  });
}

type Rect = { top: number; bottom: number; left: number; right: number; width: number; height: number };

/**
 * The boxes of several elements measured in one evaluation, so that they compare: measured one
 * call after another, a scroll or a render in between moves some of them and not the others.
 */
export async function boxes<const S extends readonly string[]>(
  page: Page,
  selectors: S,
): Promise<{ -readonly [K in keyof S]: Rect }> {
  const rects = await page.evaluate(
    (all) => {
      return all.map((selector) => {
        const el = document.querySelector(selector);
        if (el === null) throw new Error(`no element matches ${selector}`);
        const r = el.getBoundingClientRect();
        return {
          top: r.top,
          bottom: r.bottom,
          left: r.left,
          right: r.right,
          width: r.width,
          height: r.height,
        };
      });
    },
    selectors as readonly string[],
  );
  return rects as { -readonly [K in keyof S]: Rect };
}

/**
 * Waits until `test` holds of the boxes of `selectors`, measured together (`boxes`), and answers
 * them; elements not there yet count as not yet.
 */
export async function untilBoxes<const S extends readonly string[]>(
  page: Page,
  what: string,
  selectors: S,
  test: (rects: { -readonly [K in keyof S]: Rect }) => boolean,
  timeout: number,
): Promise<{ -readonly [K in keyof S]: Rect }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const rects = await boxes(page, selectors).catch(() => undefined);
    if (rects !== undefined && test(rects)) return rects;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeout} ms waiting until ${what} (${page.url()})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * What contradicts itself in the cluster panel, in words (empty when nothing does): a node card's
 * link to a peer that is not the drawing's link between them, a chip on a card of a node that is
 * not up, a health line whose kind the links do not give, a pid on a node that is not up.
 */
export function clusterContradictions(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const card = (id: string) => document.querySelector<HTMLElement>(`[data-testid="node-${id}"]`);
    const links = Array.from(document.querySelectorAll<SVGGElement>('.diagram .link')).map((g) => ({
      a: g.dataset.a ?? '',
      b: g.dataset.b ?? '',
      state: g.dataset.state ?? '',
    }));
    const states = new Map(
      Array.from(document.querySelectorAll<HTMLElement>('.diagram .dnode')).map((g) => [
        g.dataset.node,
        g.dataset.state,
      ]),
    );
    for (const l of links) {
      for (const [x, y] of [
        [l.a, l.b],
        [l.b, l.a],
      ] as const) {
        const chip = card(x)?.querySelector<HTMLElement>(`[data-peer="${y}"]`)?.dataset.link;
        if (card(x)?.dataset.state !== states.get(x))
          problems.push(`card ${x} and drawing disagree on its state`);
        if (states.get(x) === 'up' && chip !== l.state)
          problems.push(`card ${x} says ${y} ${chip}, drawing ${l.state}`);
        if (states.get(x) !== 'up' && chip !== undefined)
          problems.push(`card ${x} is not up but shows links`);
      }
    }
    for (const [id, state] of states) {
      const hasPid =
        card(id ?? '')
          ?.querySelector('.addr')
          ?.textContent?.includes('pid') === true;
      if (state !== 'up' && hasPid) problems.push(`${id} is ${state} but shows a pid`);
    }
    const kind = document.querySelector<HTMLElement>('[data-testid="cluster-health"]')?.dataset.kind;
    const expected = links.some((l) => l.state === 'blocked')
      ? 'split'
      : [...states.values()].some((s) => s !== 'up')
        ? 'down'
        : links.some((l) => l.state === 'doubt')
          ? 'doubt'
          : 'ok';
    if (kind !== expected) problems.push(`health says ${kind}, the links say ${expected}`);
    return problems;
  });
}
