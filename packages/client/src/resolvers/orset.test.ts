import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertResolverLaws } from '../testing/index.js';
import { type ORSet, orSet } from './orset.js';

const set = orSet<unknown>();

/** Sets over a small universe of tags, each tag naming one immutable element, as in real use. */
const elementOf = (tag: number): unknown => [`x${tag % 3}`, tag % 2 === 0 ? 1 : { k: [tag % 3] }][tag % 2];
const tags = fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 });
const anySet: fc.Arbitrary<ORSet<unknown>> = fc.record({ live: tags, dead: tags }).map(({ live, dead }) => ({
  elements: Object.fromEntries(live.filter((t) => !dead.includes(t)).map((t) => [`t${t}`, elementOf(t)])),
  removed: Object.fromEntries(dead.map((t) => [`t${t}`, 100 + t])),
}));

type Op =
  | { kind: 'add' | 'remove'; who: number; element: string }
  | { kind: 'sync'; from: number; to: number };
const who = fc.nat({ max: 2 });
const element = fc.constantFrom('apple', 'pear', 'fig');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('add' as const, 'remove' as const), who, element }),
  fc.record({ kind: fc.constant('sync' as const), from: who, to: who }),
);

/** Runs writers with their own copies; answers them with every tag added and every tag seen removed. */
function run(ops: Op[]) {
  const copies: (ORSet<string> | undefined)[] = [undefined, undefined, undefined];
  const added = new Set<string>();
  const killed = new Set<string>();
  const strings = orSet<string>();
  let n = 0;
  for (const o of ops) {
    if (o.kind === 'sync') {
      copies[o.to] = strings.merge([copies[o.from] ?? strings.empty(), copies[o.to] ?? strings.empty()]);
      continue;
    }
    const before = copies[o.who];
    for (const [tag, e] of Object.entries(before?.elements ?? {})) if (e === o.element) killed.add(tag);
    const tag = `t${n++}`;
    if (o.kind === 'add') added.add(tag);
    copies[o.who] = (o.kind === 'add' ? strings.add(o.element, { tag }) : strings.remove(o.element))(before);
  }
  return { copies: copies.map((c) => c ?? strings.empty()), added, killed };
}

describe('orSet()', () => {
  it('obeys the resolver laws and keeps every add no sibling removed', () => {
    assertResolverLaws(fc, set.resolver, anySet, {
      keeps: (siblings, merged) => {
        const removed = new Set(siblings.flatMap((s) => Object.keys(s.removed)));
        return siblings.every((s) =>
          Object.keys(s.elements).every((tag) => removed.has(tag) === !Object.hasOwn(merged.elements, tag)),
        );
      },
    });
  });

  it('loses no add and resurrects no seen removal, in any order of merges', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(who, { maxLength: 4 }), (ops, order) => {
        const { copies, added, killed } = run(ops);
        const merged = [...order, 0, 1, 2]
          .map((i) => copies[i]!)
          .reduce<ORSet<unknown>>((a, b) => set.merge([a, b]), set.empty());
        for (const tag of added) expect(Object.hasOwn(merged.elements, tag)).toBe(!killed.has(tag));
      }),
      { numRuns: 300 },
    );
  });

  it('lets an add win over a concurrent remove, and a removal stick against a stale copy', () => {
    const tags = orSet<string>();
    const base = tags.add('urgent')(undefined);
    const removed = tags.remove('urgent')(base);
    const readded = tags.add('urgent')(base);
    expect(tags.values(tags.merge([removed, readded]))).toEqual(['urgent']);
    expect(tags.values(tags.merge([removed, base]))).toEqual([]);
    expect(tags.has(tags.merge([removed, tags.add('later')(base)]), 'urgent')).toBe(false);
  });

  it('holds any JSON value, once each, in canonical order', () => {
    const docs = orSet<{ id: number; tags?: string[] }>();
    let s = docs.add({ id: 2 })(undefined);
    s = docs.add({ tags: ['a'], id: 1 })(s);
    s = docs.add({ id: 2 })(s);
    expect(docs.values(s)).toEqual([{ id: 1, tags: ['a'] }, { id: 2 }]);
    // Re-adding replaces the earlier add: one live tag per element and writer.
    expect(Object.keys(s.elements)).toHaveLength(2);
    expect(docs.values(docs.clear()(s))).toEqual([]);
    expect(() => docs.add({ id: Number.NaN })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('applies an add once, however often update() retries it', () => {
    const add = set.add('x');
    const once = add(undefined);
    expect(add(once)).toEqual(once);
    // One removal, compared with itself: two removals a millisecond apart stamp different times.
    const removed = set.remove('x')(once);
    expect(add(removed)).toEqual(removed);
  });

  it('bounds tombstones to the most recent', () => {
    const strings = orSet<string>({ tombstonesMax: 3 });
    let s: ORSet<string> | undefined;
    let clock = 0;
    for (let i = 0; i < 10; i++) s = strings.remove(`e${i}`, { now: () => ++clock })(strings.add(`e${i}`)(s));
    expect(Object.values(s!.removed).sort((a, b) => a - b)).toEqual([8, 9, 10]);
  });

  it('checks elements with a schema', async () => {
    const emails = orSet({ element: z.email() });
    const good = emails.add('ada@example.com')(undefined);
    expect((await emails.schema['~standard'].validate(good)).issues).toBeUndefined();
    const bad = { elements: { t1: 'not an email' }, removed: {} };
    expect((await emails.schema['~standard'].validate(bad)).issues?.[0]?.path).toEqual(['elements', 't1']);
    expect(() => emails.resolver([good, bad], [])).toThrow(
      expect.objectContaining({ code: 'RESOLVER_FAILED' }),
    );
  });
});
