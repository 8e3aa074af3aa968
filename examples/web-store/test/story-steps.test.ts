/**
 * The guide's steps (issue 17, problem 2), judged from what happened to a cart: a step ticks when
 * it is really done, in every tab of the cart, and stays ticked after the heal.
 */
import { describe, expect, it } from 'vitest';
import { StoryBook } from '../src/server/story/book.js';
import type { ServedBy } from '../src/shared/api.js';

function served(asked: string, nodeId: string, degraded = false): ServedBy {
  return { asked, nodeId, fallback: false, degraded, note: '' };
}

function setup() {
  let now = 1_000_000;
  let split: { sides: string[][]; since: number } | null = null;
  const book = new StoryBook(
    () => split,
    (id) => id,
    () => now,
  );
  return {
    book,
    tick: (ms = 1_000) => {
      now += ms;
    },
    split: (sides: string[][] | null) => {
      split = sides === null ? null : { sides, since: now };
    },
    done: (tab?: string) =>
      book
        .view('cart1', tab)
        .steps.filter((s) => s.doneAt !== null)
        .map((s) => s.id),
  };
}

describe('the story of a cart', () => {
  it('ticks "two tabs" only when a second tab is on another node, and the split only across them', () => {
    const t = setup();
    const items = { items: ['mug', 'kettle'], versions: 1 };
    t.book.seen('cart1', 'tabA', served('auto', 'n0'), items);
    expect(t.done('tabA')).toEqual(['two-items']);
    // Pinning is not enough, nor a second tab on the same node.
    t.book.seen('cart1', 'tabA', served('n0', 'n0'), items);
    t.book.seen('cart1', 'tabB', served('n0', 'n0'), items);
    expect(t.done('tabA')).toEqual(['two-items']);
    expect(t.book.view('cart1', 'tabA').steps[1]!.detail).toBe('every tab is on n0');
    // A split with both tabs on one side is not the story's split.
    t.split([['n1'], ['n0', 'n2']]);
    t.book.seen('cart1', 'tabA', served('n0', 'n0'), items);
    expect(t.done('tabA')).toEqual(['two-items']);
    t.split(null);
    t.book.seen('cart1', 'tabB', served('n2', 'n2'), items);
    expect(t.done('tabB')).toEqual(['two-items', 'two-tabs']);
    t.split([['n0'], ['n1', 'n2']]);
    t.book.seen('cart1', 'tabA', served('n0', 'n0', true), items);
    expect(t.done('tabA')).toEqual(['two-items', 'two-tabs', 'split']);
    expect(t.book.view('cart1', 'tabB').steps[2]!.detail).toBe('n0 | n1 n2, a tab on each side');
  });

  it('ticks "both sides" when each side wrote and one removed, and keeps every step after the heal', () => {
    const t = setup();
    const items = { items: ['mug', 'kettle'], versions: 1 };
    t.book.seen('cart1', 'tabA', served('n0', 'n0'), items);
    t.book.seen('cart1', 'tabB', served('n2', 'n2'), items);
    t.split([['n0'], ['n1', 'n2']]);
    t.tick();
    t.book.seen('cart1', 'tabA', served('n0', 'n0', true), items);
    t.book.wrote('cart1', 'tabA', served('n0', 'n0', true), 'add', 'lamp');
    t.book.wrote('cart1', 'tabA', served('n0', 'n0', true), 'remove', 'kettle');
    expect(t.done('tabA')).not.toContain('both-sides');
    expect(t.book.view('cart1', 'tabB').steps[3]!.detail).toBe('n0: added lamp, removed kettle');
    t.book.wrote('cart1', 'tabB', served('n2', 'n2'), 'add', 'fern');
    expect(t.done('tabB')).toContain('both-sides');
    expect(t.book.view('cart1', 'tabB').steps[3]!.detail).toBe(
      'n0: added lamp, removed kettle · n1 n2: added fern',
    );

    t.split(null);
    t.tick(10_000); // the tabs went quiet: neither is open any more
    t.book.seen('cart1', 'tabB', served('n2', 'n2'), { items: ['mug', 'lamp', 'fern'], versions: 2 });
    expect(t.done('tabB')).toEqual(['two-items', 'two-tabs', 'split', 'both-sides', 'merged']);
    expect(t.book.view('cart1', 'tabB').tabs).toEqual([{ node: 'n2', servedBy: 'n2', you: true }]);
  });

  it('tells each tab which writes and orders were its own', () => {
    const t = setup();
    t.book.wrote('cart1', 'tabA', served('n0', 'n0'), 'add', 'mug');
    t.book.checkedOut('cart1', 'tabA', { orderId: 'o1', node: 'n0', items: 1, totalCents: 1400 });
    t.book.checkedOut('cart1', 'tabA', { orderId: 'o1', node: 'n0', items: 1, totalCents: 1400 });
    expect(t.book.view('cart1', 'tabA').checkouts.map((c) => [c.orderId, c.you])).toEqual([['o1', true]]);
    expect(t.book.view('cart1', 'tabB').checkouts.map((c) => [c.orderId, c.you])).toEqual([['o1', false]]);
    expect(t.book.view('cart1', 'tabB').writes.map((w) => [w.op, w.productId, w.you])).toEqual([
      ['add', 'mug', false],
    ]);
  });
});
