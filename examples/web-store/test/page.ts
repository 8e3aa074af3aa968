/** Waiting on what a page shows, with deadlines (playwright-core has no `expect`). */
import type { Page } from 'playwright-core';

/** The CSS selector of a `data-testid`. */
export const tid = (id: string): string => `[data-testid="${id}"]`;

const POLL_MS = 50;

async function until(page: Page, what: string, timeout: number, wait: () => Promise<unknown>): Promise<void> {
  try {
    await wait();
  } catch (err) {
    throw new Error(`timed out after ${timeout} ms waiting until ${what} (${page.url()})`, { cause: err });
  }
}

export function count(page: Page, selector: string, n: number, timeout: number): Promise<void> {
  return until(page, `${n} × ${selector}`, timeout, () =>
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
  return until(page, `${selector} ${contains ? 'contains' : 'reads'} "${expected}"`, timeout, () =>
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
  return until(page, `${selector} has ${name}${not ? ' ≠ ' : ' = '}"${value}"`, timeout, () =>
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
