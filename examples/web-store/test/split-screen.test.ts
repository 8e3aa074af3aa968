/**
 * What each replica holds, split-screen and the story player, in Chromium against a real
 * three-node cluster (issue 17, part 5): one page with the cart through two nodes side by side,
 * every node's own copy diverging during a split and converging after the heal; the same page at
 * 390 px, stacked; "Play the story" run to its end at `?storySpeed=fast`, and stopped halfway, both
 * leaving the cluster healed.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ClusterView } from '../src/shared/api.js';
import { newCartId } from './harness.js';
import { attr, box, clusterContradictions, count, text, tid, until, untilBoxes } from './page.js';
import { useStoreSession } from './store-session.js';

const SHOWN_MS = 10_000;
/** Deadline for a healed cluster's replicas to hold the same versions again. */
const CONVERGED_MS = 25_000;
/** Deadline for the story player at ?storySpeed=fast, to its end. */
const STORY_MS = 60_000;

const s = useStoreSession();
const { errors } = s;

const open = (path: string, viewport = { width: 1280, height: 800 }): Promise<Page> =>
  s.open(path, { viewport }, SHOWN_MS);

async function cluster(): Promise<ClusterView> {
  return (await (await fetch(`${s.h.url}/api/cluster`)).json()) as ClusterView;
}

const pane = (side: 'left' | 'right'): string => tid(`pane-${side}`);
const paneItem = (side: 'left' | 'right', id: string): string => `${pane(side)} [data-product="${id}"]`;
const replicaItem = (node: string, id: string): string => `${tid(`replica-${node}`)} [data-product="${id}"]`;
const agreement = (page: Page, value: string, timeout = SHOWN_MS): Promise<void> =>
  attr(page, '.replicas-inner', 'data-agreement', value, timeout);

/** Every node card shows the items, and none of the others. */
async function replicasHold(
  page: Page,
  nodes: string[],
  present: string[],
  absent: string[],
  timeout = SHOWN_MS,
) {
  for (const node of nodes) {
    for (const id of present) await count(page, replicaItem(node, id), 1, timeout);
    for (const id of absent) await count(page, replicaItem(node, id), 0, timeout);
  }
}

describe('what each replica holds, split-screen and the story player', () => {
  const cartId = newCartId();
  let page: Page;

  it('shows the cart through two nodes side by side, and every node’s copy diverging in a split', async () => {
    page = await open(`/c/${cartId}?view=split`);
    // The left half is this tab, pinned to n0 (it was on auto); the right half talks to n2.
    await attr(page, pane('left'), 'data-node', 'n0', SHOWN_MS);
    await attr(page, pane('right'), 'data-node', 'n2', SHOWN_MS);
    // Both halves measured together, and waited for: measured one call after the other, a scroll
    // between the two moved one of them (a fresh CI run saw the right half 196 px lower).
    await untilBoxes(
      page,
      'the right half beside the left one, at the same height',
      [pane('left'), pane('right')],
      ([l, r]) => Math.abs(r.top - l.top) < 0.5 && r.left > l.right,
      SHOWN_MS,
    );
    // No shop in split-screen: the halves have their own buttons.
    expect(await page.isVisible(tid('product-mug'))).toBe(false);

    await page.click(tid('pane-left-add-mug'));
    await count(page, paneItem('right', 'mug'), 1, SHOWN_MS);
    await agreement(page, 'same');
    await replicasHold(page, ['n0', 'n1', 'n2'], ['mug'], []);
    await text(page, tid('replicas-headline'), 'All 3 nodes hold the same cart.', SHOWN_MS);

    await page.click(tid('isolate-n0'));
    await attr(page, '.cluster-inner', 'data-split', 'yes', SHOWN_MS);
    await attr(page, tid('pane-left-saved'), 'data-kind', 'saved', SHOWN_MS);
    await page.click(tid('pane-left-add-lamp'));
    await count(page, paneItem('left', 'lamp'), 1, SHOWN_MS);
    await text(page, tid('pane-left-saved'), 'saved on n0 only — 1 of 3 replicas', SHOWN_MS, true);
    await page.click(tid('pane-right-add-fern'));
    await count(page, paneItem('right', 'fern'), 1, SHOWN_MS);
    await attr(page, tid('pane-right-saved'), 'data-kind', 'saved', SHOWN_MS);
    await attr(page, tid('pane-left-saved'), 'data-kind', 'minority', SHOWN_MS);
    // Each half sees only its side; each node holds only its side's changes, and says so.
    await count(page, paneItem('left', 'fern'), 0, SHOWN_MS);
    await count(page, paneItem('right', 'lamp'), 0, SHOWN_MS);
    await agreement(page, 'diverged');
    await replicasHold(page, ['n0'], ['mug', 'lamp'], ['fern']);
    await replicasHold(page, ['n1', 'n2'], ['mug', 'fern'], ['lamp']);
    const group = (node: string) => page.getAttribute(tid(`replica-${node}`), 'data-group');
    expect(await group('n1')).toBe(await group('n2'));
    expect(await group('n0')).not.toBe(await group('n1'));
    await text(page, tid('replica-note-n0'), 'n0 has not received the Potted fern yet.', SHOWN_MS);
    await text(page, tid('replica-note-n2'), 'n2 has not received the Desk lamp yet.', SHOWN_MS);
    await text(page, tid('replicas-headline'), 'The split keeps them apart.', SHOWN_MS, true);
    expect(await clusterContradictions(page)).toEqual([]);
  });

  it('converges after the heal: every node holds both sides’ changes, and both halves show the merge', async () => {
    await page.click(tid('heal'));
    await attr(page, '.cluster-inner', 'data-split', 'no', SHOWN_MS);
    await agreement(page, 'same', CONVERGED_MS);
    await replicasHold(page, ['n0', 'n1', 'n2'], ['mug', 'lamp', 'fern'], []);
    await text(page, tid('pane-left-saved'), 'now on all 3 replicas', SHOWN_MS, true);
    for (const side of ['left', 'right'] as const)
      for (const id of ['mug', 'lamp', 'fern']) await count(page, paneItem(side, id), 1, CONVERGED_MS);
    // Keep the merge: one version everywhere.
    await count(page, tid('resolve'), 1, CONVERGED_MS);
    await page.click(tid('resolve'));
    await until(
      page,
      'every node holds one version',
      () =>
        Array.from(document.querySelectorAll<HTMLElement>('[data-testid^="replica-n"]')).every(
          (el) => el.dataset.versions === '1',
        ),
      CONVERGED_MS,
    );
    await agreement(page, 'same', CONVERGED_MS);
  });

  it('stacks the two halves and the replicas on a 390 px phone', async () => {
    const phone = await open(`/c/${cartId}?view=split`, { width: 390, height: 844 });
    await attr(phone, pane('right'), 'data-node', 'n2', SHOWN_MS);
    await count(phone, paneItem('right', 'lamp'), 1, SHOWN_MS);
    // Waited for: a fresh CI run measured the panes while the page was still laying them out.
    const [l, r, n0, n1] = await untilBoxes(
      phone,
      'the right pane and replica n1 are stacked under the left pane and n0',
      [pane('left'), pane('right'), tid('replica-n0'), tid('replica-n1')],
      ([left, right, r0, r1]) => right.top >= left.bottom && r1.top >= r0.bottom,
      SHOWN_MS,
    );
    expect(r.top).toBeGreaterThanOrEqual(l.bottom);
    expect(r.width).toBeGreaterThan(330);
    expect(n1.top).toBeGreaterThanOrEqual(n0.bottom);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect((await box(phone, '.topbar')).height).toBeLessThanOrEqual(64);
    await phone.context().close();
    await page.context().close();
  });

  it('plays the story hands-free to its end, and leaves the cluster healed', async () => {
    const start = await open(`/c/${newCartId()}?storySpeed=fast`);
    // Every sentence the narrator shows, however briefly, in the page the story opens.
    await start.context().addInitScript(() => {
      const said: string[] = [];
      Object.assign(window, { said });
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="narration"]')?.textContent ?? '';
        if (t !== '' && said.at(-1) !== t) said.push(t);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await start.click(tid('story-play'));
    // A fresh cart in split-screen, playing.
    await start.waitForURL((url) => url.searchParams.get('view') === 'split', { timeout: SHOWN_MS });
    expect(new URL(start.url()).pathname).not.toContain(cartId);
    await attr(start, tid('narrator'), 'data-status', 'done', STORY_MS);
    expect((await cluster()).split).toBeNull();
    await text(start, tid('guide-count'), '5/5', SHOWN_MS);
    await agreement(start, 'same', SHOWN_MS);
    for (const side of ['left', 'right'] as const) {
      for (const id of ['lamp', 'fern']) await count(start, paneItem(side, id), 1, SHOWN_MS);
      await attr(start, paneItem(side, 'mug'), 'data-qty', '2', SHOWN_MS);
      await count(start, paneItem(side, 'kettle'), 0, SHOWN_MS);
    }
    await count(start, tid('reconciliation'), 1, SHOWN_MS);
    // The narrator pointed at n0's write without a quorum, and at the note once every node had it.
    const said = await start.evaluate(() => (window as unknown as { said: string[] }).said);
    expect(said.some((t) => t.includes('Notice under the left half'))).toBe(true);
    expect(said.some((t) => t.includes('“saved on n0 only — 1 of 3 replicas”'))).toBe(true);
    expect(said.some((t) => t.includes('now reads “now on all 3 replicas”'))).toBe(true);
    await text(start, tid('pane-left-saved'), 'now on all 3 replicas', SHOWN_MS, true);
    await start.context().close();
  });

  it('stops the story on Stop, and heals the cluster it had split', async () => {
    const start = await open(`/c/${newCartId()}?storySpeed=fast`);
    // Holds the story's first write of the split (the lamp, on n0) until Stop is pressed.
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await start.route('**/items', async (route) => {
      if (route.request().postData()?.includes('lamp') === true) await held;
      await route.continue();
    });
    await start.click(tid('story-play'));
    await attr(start, tid('narrator'), 'data-step', '4', STORY_MS);
    expect((await cluster()).split).not.toBeNull();
    await start.click(tid('story-stop'));
    release();
    await attr(start, tid('narrator'), 'data-status', 'stopped', SHOWN_MS);
    await text(start, tid('narration'), 'Stopped. The cluster is healed.', SHOWN_MS);
    expect((await cluster()).split).toBeNull();
    await attr(start, '.cluster-inner', 'data-split', 'no', SHOWN_MS);
    await start.context().close();
    expect(errors).toEqual([]);
  });
});
