/** The reconciliation view's analysis of sibling carts, on the cases a person must read right. */
import { type Cart, cart, type Version } from '@tessera/client';
import { describe, expect, it } from 'vitest';
import { explain } from '../src/server/cart/explain.js';

const name = (id: string): string => id;
const nowhere = { added: () => undefined, removed: () => undefined };
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
      note: 'A removed the lines it had seen; an add it had not seen survives.',
    });
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
  });
});
