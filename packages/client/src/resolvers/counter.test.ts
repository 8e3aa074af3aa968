import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertResolverLaws } from '../testing/index.js';
import { counter, type PNCounter } from './counter.js';
import type { Resolver } from './types.js';

const actor = fc.constantFrom('a', 'b', 'c', 'd');
const totals = fc.dictionary(actor, fc.nat({ max: 6 }));
const anyCounter: fc.Arbitrary<PNCounter> = fc.record({ p: totals, n: totals });

/** Writers, each with its own actor and copy, changing the counter and now and then syncing. */
type Op = { kind: 'inc' | 'dec'; who: number; by: number } | { kind: 'sync'; from: number; to: number };
const who = fc.nat({ max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('inc' as const, 'dec' as const),
    who,
    by: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({ kind: fc.constant('sync' as const), from: who, to: who }),
);

describe('counter (PN-counter)', () => {
  it('obeys the resolver laws and keeps every actor total', () => {
    assertResolverLaws(fc, counter.resolver, anyCounter, {
      keeps: (siblings, merged) =>
        siblings.every((s) =>
          (['p', 'n'] as const).every((side) =>
            Object.entries(s[side]).every(([a, n]) => (merged[side][a] ?? 0) >= n),
          ),
        ),
    });
  });

  it('counts every change exactly once, whatever the order and grouping of merges', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(who, { maxLength: 4 }), (ops, order) => {
        const copies: (PNCounter | undefined)[] = [undefined, undefined, undefined];
        let expected = 0;
        for (const o of ops) {
          if (o.kind === 'sync') {
            copies[o.to] = counter.merge([
              copies[o.from] ?? counter.empty(),
              copies[o.to] ?? counter.empty(),
            ]);
            continue;
          }
          const change =
            o.kind === 'inc' ? counter.increment(`w${o.who}`, o.by) : counter.decrement(`w${o.who}`, o.by);
          copies[o.who] = change(copies[o.who]);
          expected += o.kind === 'inc' ? o.by : -o.by;
        }
        const all = [...order, 0, 1, 2].map((i) => copies[i] ?? counter.empty());
        const pairwise = all.reduce((acc, c) => counter.merge([acc, c]));
        expect(counter.value(pairwise)).toBe(expected);
        expect(counter.value(counter.resolver(all, []))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('is what the law checker is for: a summing merge is caught', () => {
    const summing: Resolver<number> = (siblings) => siblings.reduce((a, b) => a + b, 0);
    expect(() => assertResolverLaws(fc, summing, fc.integer({ min: 0, max: 9 }))).toThrow(/not idempotent/);
  });

  it('applies an updater once, however often update() retries it', () => {
    const plusTwo = counter.increment('phone', 2);
    const once = plusTwo(counter.increment('laptop', 5)(undefined));
    expect(counter.value(once)).toBe(7);
    expect(plusTwo(once)).toEqual(once);
    // A retry on a read that does not hold the first attempt (it never landed) applies it.
    const fresh = counter.increment('laptop', 1)(undefined);
    expect(counter.value(plusTwo(fresh))).toBe(3);
    expect(counter.value(counter.decrement('phone', 4)(once))).toBe(3);
  });

  it('reads values, checks shapes and refuses bad changes', () => {
    expect(counter.value(undefined)).toBe(0);
    expect(counter.view({ p: { a: 3, b: 2 }, n: { a: 4 } })).toBe(1);
    expect(counter.is({ p: { a: 1 }, n: {} })).toBe(true);
    expect(counter.issues({ p: { a: -1 }, n: {} })[0]?.path).toEqual(['p', 'a']);
    expect(counter.is({ p: { a: 1.5 }, n: {} })).toBe(false);
    expect(() => counter.increment('a', 0)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => counter.increment('', 1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => counter.resolver([counter.empty(), 3 as unknown as PNCounter], [])).toThrow(
      expect.objectContaining({ code: 'RESOLVER_FAILED' }),
    );
  });

  it('writes stable JSON: actors sorted', () => {
    const c = counter.increment('b')(counter.increment('a')(undefined));
    expect(JSON.stringify(counter.merge([c]))).toBe('{"p":{"a":1,"b":1},"n":{}}');
  });
});
