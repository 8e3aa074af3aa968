/**
 * The reconciliation view's analysis of sibling carts, on the cases a person must read right:
 * every version's own changes, and every rule the merge applied (issue 17, problem 3).
 */
import { type Cart, cart, type Version } from '@tessera/client';
import { describe, expect, it } from 'vitest';
import { explain } from '../src/server/cart/explain.js';

const name = (id: string): string => id;
const nowhere = { added: () => undefined, removed: () => undefined, item: () => undefined };
const at = (cartValue: Cart, second: number): Version<Cart> => ({
  value: cartValue,
  lastModified: new Date(Date.UTC(2026, 0, 1, 12, 0, second)),
});

/** Both sides start from a cart with a mug and a kettle. */
const base = cart.add('kettle', 1, { tag: 'k1' })(cart.add('mug', 1, { tag: 'm1' })(undefined));

describe('explain', () => {
  it('tells the split story: an add on each side, a removal on one, and a union that would resurrect it', () => {
    const left = cart.remove('kettle')(cart.add('lamp', 1, { tag: 'l1' })(base));
    const right = cart.add('fern', 2, { tag: 'f1' })(base);
    const via = {
      added: (t: string) => ({ l1: 'n0', f1: 'n2' })[t],
      removed: (t: string) => (t === 'k1' ? 'n0' : undefined),
      item: () => undefined,
    };
    const r = explain([at(left, 1), at(right, 2)], name, via);

    expect(r.versions.map((v) => [v.label, v.via])).toEqual([
      ['A', ['n0']],
      ['B', ['n2']],
    ]);
    expect(r.versions[0]!.items.map((i) => [i.productId, i.change, i.quantity])).toEqual([
      ['kettle', 'removed', 0],
      ['lamp', 'added', 1],
      ['mug', 'same', 1],
    ]);
    expect(r.versions[1]!.items.map((i) => [i.productId, i.change, i.removedElsewhere])).toEqual([
      ['fern', 'added', []],
      ['kettle', 'same', ['A']],
      ['mug', 'same', []],
    ]);
    expect(r.merged.map((m) => [m.productId, m.quantity, m.from, m.note])).toEqual([
      ['fern', 2, ['B'], 'Added in B.'],
      ['lamp', 1, ['A'], 'Added in A.'],
      ['mug', 1, ['A', 'B'], 'In every version.'],
    ]);
    expect(r.removed).toEqual([{ productId: 'kettle', name: 'kettle', removedIn: ['A'], via: ['n0'] }]);
    expect(r.unionWouldResurrect).toEqual(['kettle']);
    expect(r.rules.map((rule) => [rule.id, rule.cases.map((c) => c.productId)])).toEqual([
      ['removal-kept', ['kettle']],
      ['change-kept', ['fern', 'lamp']],
      ['unchanged', ['mug']],
    ]);
    expect(r.rules[0]!.cases[0]!.lines.map((l) => [l.label, l.text])).toEqual([
      ['A', 'removed here'],
      ['B', '×1, as before'],
    ]);
  });

  it('says that a change made while another version removed the item wins, and shows both lines', () => {
    // A removes the mug while B, not seeing that, raises it to 2 (setQuantity replaces the mug's
    // line m1 too, on B's own, so neither version holds m1 live any more: the store's journal
    // remembers that m1 was a mug line).
    const removedInA = cart.remove('mug', { now: () => 1_000 })(base);
    const raisedInB = cart.setQuantity('mug', 2, { tag: 'm2', now: () => 2_000 })(base);
    const via = {
      added: (t: string) => (t === 'm2' ? 'n2' : undefined),
      removed: (t: string, when: number) =>
        t === 'm1' ? ({ 1000: 'n0', 2000: 'n2' } as Record<number, string>)[when] : undefined,
      item: (t: string) => (t === 'm1' ? 'mug' : undefined),
    };
    const r = explain([at(removedInA, 1), at(raisedInB, 2)], name, via);

    expect(
      r.versions.map((v) => [v.label, v.via, v.items.map((i) => [i.productId, i.change, i.quantity])]),
    ).toEqual([
      [
        'A',
        ['n0'],
        [
          ['kettle', 'same', 1],
          ['mug', 'removed', 0],
        ],
      ],
      [
        'B',
        ['n2'],
        [
          ['kettle', 'same', 1],
          ['mug', 'set', 2],
        ],
      ],
    ]);
    expect(r.versions[1]!.items.find((i) => i.productId === 'mug')?.removedElsewhere).toEqual(['A']);
    expect(r.merged.find((m) => m.productId === 'mug')).toMatchObject({
      quantity: 2,
      from: ['B'],
      rule: 'change-beats-removal',
      note: 'Removed in A, quantity set in B at the same time: a concurrent change wins over a removal.',
    });
    const rule = r.rules.find((x) => x.id === 'change-beats-removal')!;
    expect(rule.title).toBe('A concurrent change wins over a removal');
    expect(rule.cases).toEqual([
      {
        productId: 'mug',
        name: 'mug',
        result: 2,
        lines: [
          { label: 'A', quantity: 0, change: 'removed', text: 'removed here' },
          { label: 'B', quantity: 2, change: 'set', text: '×2, quantity set here, unseen by A' },
        ],
      },
    ]);
    expect(r.removed).toEqual([]);
    expect(r.unionWouldResurrect).toEqual([]);
  });

  it('explains an add that survives a concurrent removal of the same item', () => {
    const removed = cart.remove('mug')(base);
    const more = cart.add('mug', 2, { tag: 'm2' })(base);
    const r = explain([at(removed, 1), at(more, 2)], name, nowhere);
    expect(r.versions[1]!.items.find((i) => i.productId === 'mug')).toMatchObject({
      change: 'more',
      quantity: 3,
      removedElsewhere: ['A'],
    });
    expect(r.merged.find((m) => m.productId === 'mug')).toMatchObject({
      quantity: 2,
      from: ['B'],
      rule: 'change-beats-removal',
      note: 'Removed in A, more added in B at the same time: a concurrent change wins over a removal.',
    });
    expect(r.versions[0]!.items.find((i) => i.productId === 'mug')?.change).toBe('removed');
    expect(r.removed).toEqual([]);
  });

  it('explains concurrent quantity changes: the larger one wins', () => {
    const r = explain(
      [at(cart.setQuantity('mug', 5)(base), 1), at(cart.setQuantity('mug', 2)(base), 2)],
      name,
      nowhere,
    );
    expect(r.versions.map((v) => v.items.find((i) => i.productId === 'mug')?.change)).toEqual(['set', 'set']);
    expect(r.merged.find((m) => m.productId === 'mug')).toMatchObject({
      quantity: 5,
      rule: 'larger-set-wins',
      note: 'Quantity set in A and B at once: the larger wins.',
    });
  });

  it('labels three versions and attributes each line of the merge', () => {
    const r = explain(
      [
        at(cart.add('lamp', 1, { tag: 'a' })(base), 1),
        at(cart.add('fern', 1, { tag: 'b' })(base), 2),
        at(cart.add('watch', 1, { tag: 'c' })(base), 3),
      ],
      name,
      nowhere,
    );
    expect(r.versions.map((v) => v.label)).toEqual(['A', 'B', 'C']);
    expect(r.merged.map((m) => [m.productId, m.from])).toEqual([
      ['fern', ['B']],
      ['kettle', ['A', 'B', 'C']],
      ['lamp', ['A']],
      ['mug', ['A', 'B', 'C']],
      ['watch', ['C']],
    ]);
    expect(r.rules.map((rule) => rule.id)).toEqual(['change-kept', 'unchanged']);
  });

  it('keeps an item both versions removed on their own removed, without a union to blame', () => {
    const a = cart.remove('kettle', { now: () => 1_000 })(base);
    const b = cart.remove('kettle', { now: () => 2_000 })(base);
    const r = explain([at(a, 1), at(b, 2)], name, {
      ...nowhere,
      item: (t) => (t === 'k1' ? 'kettle' : undefined),
    });
    expect(r.removed.map((x) => [x.productId, x.removedIn])).toEqual([['kettle', ['A', 'B']]]);
    expect(r.rules.find((x) => x.id === 'removal-kept')?.cases.map((c) => c.productId)).toEqual(['kettle']);
    expect(r.unionWouldResurrect).toEqual([]);
  });
});
