import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvers } from '../resolvers/index.js';
import { assertResolverLaws } from '../testing/index.js';
import { type Cart, cart } from './index.js';
import type { CartLine } from './state.js';

/**
 * A model of concurrent sessions: each holds its own copy of the cart, changes it, and now and
 * then merges another session's copy into its own (as a read that sees both siblings does).
 */
type Op =
  | { kind: 'add'; session: number; item: string; qty: number }
  | { kind: 'set'; session: number; item: string; qty: number }
  | { kind: 'remove'; session: number; item: string }
  | { kind: 'sync'; from: number; to: number };

const SESSIONS = 3;
const item = fc.constantFrom('apple', 'pear', 'fig');
const session = fc.integer({ min: 0, max: SESSIONS - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), session, item, qty: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('set' as const), session, item, qty: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('remove' as const), session, item }),
  fc.record({ kind: fc.constant('sync' as const), from: session, to: session }),
);

interface Run {
  readonly states: (Cart | undefined)[];
  /** Every tag an add or set created. */
  readonly added: Set<string>;
  /** Every tag a remove or set saw live and so removed. */
  readonly killed: Set<string>;
}

function run(ops: Op[]): Run {
  const states: (Cart | undefined)[] = new Array(SESSIONS).fill(undefined);
  const added = new Set<string>();
  const killed = new Set<string>();
  let clock = 0;
  let tagNo = 0;
  const options = () => ({ tag: `t${tagNo++}`, now: () => ++clock });
  const liveTags = (c: Cart | undefined, name: string): string[] =>
    Object.entries(c?.lines ?? {})
      .filter(([, line]) => line.item === name)
      .map(([tag]) => tag);
  for (const o of ops) {
    if (o.kind === 'sync') {
      states[o.to] = cart.merge([states[o.from] ?? cart.empty(), states[o.to] ?? cart.empty()]);
      continue;
    }
    const before = states[o.session];
    if (o.kind !== 'add') for (const tag of liveTags(before, o.item)) killed.add(tag);
    const opts = options();
    const updater =
      o.kind === 'add'
        ? cart.add(o.item, o.qty, opts)
        : o.kind === 'set'
          ? cart.setQuantity(o.item, o.qty, opts)
          : cart.remove(o.item, opts);
    if (o.kind === 'add' || (o.kind === 'set' && o.qty > 0)) added.add(opts.tag);
    states[o.session] = updater(before);
  }
  return { states, added, killed };
}

/** Merges the sessions' carts in a given order and grouping (a binary tree over a permutation). */
function mergeIn(states: Cart[], order: number[]): Cart {
  let acc: Cart[] = order.map((i) => states[i % states.length]!);
  while (acc.length > 1) {
    const next: Cart[] = [];
    for (let i = 0; i < acc.length; i += 2)
      next.push(i + 1 < acc.length ? cart.merge([acc[i]!, acc[i + 1]!]) : acc[i]!);
    acc = next;
  }
  return acc[0]!;
}

const history = fc.array(op, { maxLength: 40 });
const order = fc
  .array(fc.nat({ max: SESSIONS - 1 }), { minLength: 1, maxLength: 6 })
  .map((o) => [...o, ...Array.from({ length: SESSIONS }, (_, i) => i)]);

describe('the cart CRDT', () => {
  it('loses no add: every tag nobody saw removed is live after merging, in any order and grouping', () => {
    fc.assert(
      fc.property(history, order, (ops, o) => {
        const { states, added, killed } = run(ops);
        const merged = mergeIn(
          states.map((s) => s ?? cart.empty()),
          o,
        );
        for (const tag of added) if (!killed.has(tag)) expect(Object.hasOwn(merged.lines, tag)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps removed items removed: no tag a writer saw and removed ever comes back', () => {
    fc.assert(
      fc.property(history, order, (ops, o) => {
        const { states, killed } = run(ops);
        const merged = mergeIn(
          states.map((s) => s ?? cart.empty()),
          o,
        );
        for (const tag of killed) expect(Object.hasOwn(merged.lines, tag)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('removes an item for good when every session saw the removal, whatever stale copy is merged later', () => {
    fc.assert(
      fc.property(history, (ops) => {
        const { states } = run(ops);
        const everything = cart.merge(states.map((s) => s ?? cart.empty()));
        const removed = cart.remove('apple')(everything);
        // A stale copy from before the removal (any session's) merged back in brings nothing back.
        for (const stale of states) {
          expect(cart.quantity(cart.merge([removed, stale ?? cart.empty()]), 'apple')).toBe(0);
        }
      }),
    );
  });

  it('as a resolver obeys the laws (commutative, associative, idempotent) and keeps every live line', () => {
    // Carts over a small universe of tags, each tag naming one immutable line, as in real use.
    const lineOf = (tag: number): CartLine =>
      tag % 3 === 0
        ? { item: `i${tag % 2}`, qty: 1 + (tag % 4), set: true, at: tag }
        : { item: `i${tag % 2}`, qty: 1 + (tag % 3), at: tag };
    const tags = fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 });
    const arbitraryCart = fc.record({ live: tags, dead: tags }).map(
      ({ live, dead }): Cart => ({
        type: 'tessera.cart',
        v: 1,
        lines: Object.fromEntries(live.filter((t) => !dead.includes(t)).map((t) => [`t${t}`, lineOf(t)])),
        removed: Object.fromEntries(dead.map((t) => [`t${t}`, 100 + t])),
      }),
    );
    assertResolverLaws(fc, resolvers.cart(), arbitraryCart, {
      keeps: (siblings, merged) => {
        const removed = new Set(siblings.flatMap((s) => Object.keys(s.removed)));
        return siblings.every((s) =>
          Object.keys(s.lines).every((tag) => removed.has(tag) === !Object.hasOwn(merged.lines, tag)),
        );
      },
    });
  });
});

describe('cart quantities', () => {
  const base = cart.add('apple', 1, { tag: 'a1' })(undefined);

  it('adds up concurrent adds of the same item', () => {
    const left = cart.add('apple', 2)(base);
    const right = cart.add('apple', 3)(base);
    expect(cart.quantity(cart.merge([left, right]), 'apple')).toBe(6);
  });

  it('resolves concurrent setQuantity calls to the larger, with unseen adds on top', () => {
    const left = cart.setQuantity('apple', 5)(base);
    const right = cart.setQuantity('apple', 2)(base);
    const third = cart.add('apple', 1)(base);
    expect(cart.quantity(cart.merge([left, right]), 'apple')).toBe(5);
    expect(cart.quantity(cart.merge([left, right, third]), 'apple')).toBe(6);
    // A set that saw the add replaces it.
    expect(cart.quantity(cart.setQuantity('apple', 2)(cart.merge([left, third])), 'apple')).toBe(2);
  });

  it('keeps an add the remover did not see (add wins over a concurrent remove)', () => {
    const removed = cart.remove('apple')(base);
    const added = cart.add('apple', 2)(base);
    const merged = cart.merge([removed, added]);
    expect(cart.items(merged)).toEqual([{ item: 'apple', quantity: 2 }]);
  });

  it('applies an updater once, however often update() retries it', () => {
    const add = cart.add('pear', 2);
    const set = cart.setQuantity('fig', 3);
    const once = set(add(base));
    expect(set(add(once))).toEqual(once);
    expect(cart.items(once)).toEqual([
      { item: 'apple', quantity: 1 },
      { item: 'fig', quantity: 3 },
      { item: 'pear', quantity: 2 },
    ]);
  });

  it('refuses bad quantities and items', () => {
    expect(() => cart.add('apple', 0)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => cart.setQuantity('apple', 1.5)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => cart.add('', 1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('cart tombstones', () => {
  it('keeps at most tombstonesMax, the most recent', () => {
    let c: Cart = cart.empty();
    let clock = 0;
    for (let i = 0; i < 30; i++) {
      const now = () => ++clock;
      c = cart.add(`item${i}`, 1, { tag: `t${i}`, now })(c);
      c = cart.remove(`item${i}`, { tombstonesMax: 10, now })(c);
    }
    expect(Object.keys(c.removed)).toHaveLength(10);
    expect(Object.keys(c.removed).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `t${20 + i}`).sort());
    expect(Object.keys(cart.merge([c, c], { tombstonesMax: 5 }).removed)).toHaveLength(5);
  });

  it('documents the cost of the bound: a copy older than the kept tombstones can bring its item back', () => {
    let clock = 0;
    const opts = { tombstonesMax: 2, now: () => ++clock };
    const stale = cart.add('apple', 1, { tag: 'old' })(undefined);
    let c = cart.remove('apple', opts)(stale);
    for (let i = 0; i < 3; i++) c = cart.remove(`x${i}`, opts)(cart.add(`x${i}`)(c));
    expect(Object.hasOwn(c.removed, 'old')).toBe(false);
    expect(cart.quantity(cart.merge([c, stale], { tombstonesMax: 2 }), 'apple')).toBe(1);
    // Within the bound (the default keeps 1000), the same stale copy stays removed.
    const kept = cart.remove('apple')(stale);
    expect(cart.quantity(cart.merge([kept, stale]), 'apple')).toBe(0);
  });
});

describe('cart.schema', () => {
  it('accepts carts and names what is wrong with anything else', async () => {
    const ok = await cart.schema['~standard'].validate(cart.add('apple')(undefined));
    expect(ok.issues).toBeUndefined();
    const bad = await cart.schema['~standard'].validate({
      type: 'tessera.cart',
      v: 1,
      lines: { t: { item: 'apple', qty: -1, at: 0 } },
      removed: {},
    });
    expect(bad.issues?.[0]?.path).toEqual(['lines', 't']);
    expect(cart.is(['apple'])).toBe(false);
  });

  it('is what the cart resolver checks: it refuses a sibling that is not a cart', () => {
    expect(() => resolvers.cart()([cart.empty(), ['apple'] as unknown as Cart], [])).toThrow(
      expect.objectContaining({ code: 'RESOLVER_FAILED' }),
    );
  });
});
