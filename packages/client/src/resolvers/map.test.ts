import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cart } from '../cart/index.js';
import { assertResolverLaws } from '../testing/index.js';
import { counter, type PNCounter } from './counter.js';
import { crdtMap, crdtMapOf } from './map.js';
import { type ORSet, orSet } from './orset.js';
import { type LwwRegister, lwwRegister } from './register.js';

const profile = crdtMap({
  name: lwwRegister({ value: z.string() }),
  visits: counter,
  tags: orSet<string>(),
});

const actor = fc.constantFrom('a', 'b', 'c');
const anyCounter: fc.Arbitrary<PNCounter> = fc.record({
  p: fc.dictionary(actor, fc.nat({ max: 4 })),
  n: fc.dictionary(actor, fc.nat({ max: 4 })),
});
const anyName: fc.Arbitrary<LwwRegister<string>> = fc.record({
  value: fc.constantFrom('Ada', 'Bob', ''),
  at: fc.nat({ max: 3 }),
  by: actor,
});
const tagOf = (t: number) => `tag${t % 4}`;
const tagNumbers = fc.uniqueArray(fc.nat({ max: 7 }), { maxLength: 4 });
const anyTags: fc.Arbitrary<ORSet<string>> = fc
  .record({ live: tagNumbers, dead: tagNumbers })
  .map(({ live, dead }) => ({
    elements: Object.fromEntries(live.filter((t) => !dead.includes(t)).map((t) => [`t${t}`, tagOf(t)])),
    removed: Object.fromEntries(dead.map((t) => [`t${t}`, t])),
  }));
const anyProfile = fc.record(
  { name: anyName, visits: anyCounter, tags: anyTags, legacy: fc.constantFrom('x', 'y', { z: 1 }) },
  { requiredKeys: [] },
);

describe('crdtMap()', () => {
  it('obeys the resolver laws, field by field, undeclared fields included', () => {
    assertResolverLaws(fc, profile.resolver, anyProfile, {
      keeps: (siblings, merged) =>
        siblings.every((s) => Object.keys(s).every((field) => Object.hasOwn(merged, field))),
    });
  });

  it('keeps concurrent edits of different fields, where whole-value LWW keeps one of them', () => {
    const base = profile.change({ name: profile.fields.name.set('Ada', { now: () => 1 }) })(undefined);
    const laptop = profile.change({
      name: profile.fields.name.set('Ada Lovelace', { actor: 'laptop', now: () => 2 }),
      tags: profile.fields.tags.add('math'),
    })(base);
    const phone = profile.change({
      visits: counter.increment('phone', 3),
      tags: profile.fields.tags.add('poetry'),
    })(base);
    expect(profile.view(profile.resolver([laptop, phone], []))).toEqual({
      name: 'Ada Lovelace',
      visits: 3,
      tags: ['math', 'poetry'],
    });
    expect(profile.view(undefined)).toEqual({ name: undefined, visits: 0, tags: [] });
  });

  it('names the field of a bad value, and nests any CRDT, the cart included', () => {
    expect(profile.issues({ visits: { p: { a: -1 }, n: {} } })[0]?.path).toEqual(['visits', 'p', 'a']);
    expect(profile.issues({ name: { value: 3, at: 1, by: 'a' } })[0]?.path).toEqual(['name', 'value']);
    expect(profile.is([])).toBe(false);
    const order = crdtMap({ cart: cart.crdt(), note: lwwRegister<string>(), lines: crdtMapOf(counter) });
    const v = order.change({
      cart: cart.add('apple', 2),
      lines: order.fields.lines.change('x', counter.increment('a')),
    })(undefined);
    expect(order.view(v)).toEqual({
      cart: [{ item: 'apple', quantity: 2 }],
      note: undefined,
      lines: { x: 1 },
    });
  });
});

describe('crdtMapOf()', () => {
  const votes = crdtMapOf(counter);

  it('obeys the resolver laws over any keys', () => {
    assertResolverLaws(fc, votes.resolver, fc.dictionary(fc.constantFrom('yes', 'no', 'maybe'), anyCounter));
  });

  it('merges each key with its CRDT and reads them all', () => {
    const base = votes.change('yes', counter.increment('ada'))(undefined);
    const left = votes.change('yes', counter.increment('bob'))(base);
    const right = votes.change('no', counter.increment('cy'))(base);
    expect(votes.view(votes.merge([left, right]))).toEqual({ no: 1, yes: 2 });
    expect(votes.name).toBe('a map of PN-counters');
    expect(votes.is({ yes: { p: {}, n: {} }, no: 'x' })).toBe(false);
  });
});
