import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonical } from '../canonical.js';
import { assertResolverLaws } from '../testing/index.js';
import { type LwwRegister, lwwRegister } from './register.js';

const json = fc.oneof(
  fc.string({ maxLength: 2 }),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
);
const anyRegister: fc.Arbitrary<LwwRegister<unknown>> = fc.record({
  value: json,
  at: fc.integer({ min: 0, max: 3 }),
  by: fc.constantFrom('a', 'b'),
});

describe('lwwRegister()', () => {
  const register = lwwRegister<unknown>();

  it('obeys the laws and keeps the sibling with the largest (at, by)', () => {
    assertResolverLaws(fc, register.resolver, anyRegister, {
      keeps: (siblings, merged) =>
        siblings.some((s) => canonical(s) === canonical(merged)) &&
        siblings.every((s) => s.at < merged.at || (s.at === merged.at && s.by <= merged.by)),
    });
  });

  it('breaks ties by writer, then by value, the same way on every client', () => {
    const x = { value: 'x', at: 5, by: 'a' };
    const y = { value: 'y', at: 5, by: 'b' };
    expect(register.merge([x, y])).toEqual(y);
    expect(register.merge([y, x])).toEqual(y);
    const z1 = { value: 'z1', at: 5, by: 'b' };
    expect(register.merge([z1, y])).toEqual(z1);
    expect(register.merge([y, z1])).toEqual(z1);
  });

  it('lets a write made after reading a value win over it, even with a clock behind', () => {
    const names = lwwRegister<string>();
    const ahead = names.set('from a fast clock', { actor: 'fast', now: () => 10_000 })(undefined);
    const after = names.set('written after reading it', { actor: 'slow', now: () => 1_000 })(ahead);
    expect(after.at).toBe(10_001);
    expect(names.get(names.merge([ahead, after]))).toBe('written after reading it');
    // Concurrent writes (neither saw the other): the later clock wins.
    const early = names.set('early', { actor: 'x', now: () => 5 })(undefined);
    const late = names.set('late', { actor: 'y', now: () => 6 })(undefined);
    expect(names.view(names.resolver([late, early], []))).toBe('late');
  });

  it('checks values with a schema, and refuses values that are not JSON', async () => {
    const ages = lwwRegister({ value: z.number().int() });
    const ok = await ages.schema['~standard'].validate({ value: 36, at: 1, by: 'a' });
    expect(ok.issues).toBeUndefined();
    const bad = await ages.schema['~standard'].validate({ value: 'old', at: 1, by: 'a' });
    expect(bad.issues?.[0]?.path).toEqual(['value']);
    expect(ages.is({ value: 1, at: Number.NaN, by: 'a' })).toBe(false);
    expect(() => lwwRegister().set(new Date())).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(lwwRegister().get(undefined)).toBeUndefined();
  });
});
