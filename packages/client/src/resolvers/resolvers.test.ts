import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical } from '../canonical.js';
import { TesseraError } from '../errors.js';
import { assertResolverLaws } from '../testing/index.js';
import { resolvers } from './index.js';
import type { Resolver, Version } from './types.js';

const json = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -3, max: 3 }), fc.boolean());
const at = (ms: number): Date => new Date(1_800_000_000_000 + ms);
const versions = <T>(...pairs: [T, number][]): Version<T>[] =>
  pairs.map(([value, ms]) => ({ value, lastModified: at(ms) }));

describe('resolvers.union()', () => {
  it('obeys the resolver laws on arrays and keeps every element of every sibling', () => {
    assertResolverLaws(fc, resolvers.union<unknown[]>(), fc.array(json, { maxLength: 6 }), {
      keeps: (siblings, merged) => {
        const kept = new Set(merged.map(canonical));
        return siblings.every((s) => s.every((e) => kept.has(canonical(e))));
      },
    });
  });

  it('obeys the laws on arrays of objects deduplicated by id, keeping every id', () => {
    const item = fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd'), n: fc.integer({ min: 0, max: 2 }) });
    assertResolverLaws(
      fc,
      resolvers.union<{ id: string; n: number }[]>({ key: (e) => e.id }),
      fc.array(item),
      {
        keeps: (siblings, merged) => {
          const ids = merged.map((e) => e.id);
          return new Set(ids).size === ids.length && siblings.flat().every((e) => ids.includes(e.id));
        },
      },
    );
  });

  it('obeys the laws on Sets and answers a Set', () => {
    const merge = resolvers.union<Set<unknown>>();
    assertResolverLaws(
      fc,
      merge,
      fc.array(json, { maxLength: 5 }).map((a) => new Set(a)),
      { keeps: (siblings, merged) => siblings.every((s) => [...s].every((e) => merged.has(e))) },
    );
    expect(merge([new Set([2, 1]), new Set([3, 1])], [])).toEqual(new Set([1, 2, 3]));
  });

  it('orders the merge deterministically, whatever the order of siblings', () => {
    const merge = resolvers.union<string[]>();
    expect(merge([['pear', 'apple'], ['fig']], [])).toEqual(['apple', 'fig', 'pear']);
    expect(merge([['fig'], ['apple', 'pear', 'pear']], [])).toEqual(['apple', 'fig', 'pear']);
  });

  it('refuses siblings that are not arrays or Sets with RESOLVER_FAILED', () => {
    const merge = resolvers.union<unknown[]>() as Resolver<unknown>;
    expect(() => merge([[1], 'x'], [])).toThrow(expect.objectContaining({ code: 'RESOLVER_FAILED' }));
  });
});

describe('resolvers.lww()', () => {
  it('obeys the laws and answers one of the siblings', () => {
    assertResolverLaws(fc, resolvers.lww<unknown>(), json, {
      keeps: (siblings, merged) => siblings.some((s) => canonical(s) === canonical(merged)),
    });
  });

  it('picks the latest lastModified, and breaks ties by value', () => {
    const merge = resolvers.lww<string>();
    expect(merge(['old', 'new'], versions(['old', 1], ['new', 2]))).toBe('new');
    expect(merge(['new', 'old'], versions(['new', 2], ['old', 1]))).toBe('new');
    expect(merge(['a', 'b'], versions(['a', 5], ['b', 5]))).toBe('b');
    expect(merge(['b', 'a'], versions(['b', 5], ['a', 5]))).toBe('b');
  });

  it('can read the timestamp from the value, and obeys the laws that way too', () => {
    type Doc = { text: string; updatedAt: number };
    const merge = resolvers.lww<Doc>({ timestamp: (v) => v.updatedAt });
    const doc = fc.record({ text: fc.string({ maxLength: 2 }), updatedAt: fc.integer({ min: 0, max: 3 }) });
    assertResolverLaws(fc, merge, doc, {
      keeps: (siblings, merged) => merged.updatedAt === Math.max(...siblings.map((s) => s.updatedAt)),
    });
  });
});

describe('assertResolverLaws', () => {
  const list = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 });

  it('catches a resolver that depends on the order of siblings', () => {
    const first: Resolver<number[]> = (siblings) => siblings[0]!;
    expect(() => assertResolverLaws(fc, first, list)).toThrow(/not commutative/);
  });

  it('catches a resolver that counts duplicates', () => {
    const concat: Resolver<number[]> = (siblings) => siblings.flat().sort();
    expect(() => assertResolverLaws(fc, concat, list)).toThrow(/not (associative|idempotent)/);
  });

  it('catches a resolver that does not keep what it promises', () => {
    const intersection: Resolver<number[]> = (siblings) =>
      [...new Set(siblings[0])].filter((e) => siblings.every((s) => s.includes(e))).sort();
    expect(() =>
      assertResolverLaws(fc, intersection, list, {
        keeps: (siblings, merged) => siblings.every((s) => s.every((e) => merged.includes(e))),
      }),
    ).toThrow(/not keeping what it promises/);
  });

  it('reports failures as errors, not TesseraErrors', () => {
    try {
      assertResolverLaws(fc, (s: number[][]) => s[0]!, list);
    } catch (err) {
      expect(TesseraError.is(err)).toBe(false);
      return;
    }
    expect.unreachable();
  });
});
