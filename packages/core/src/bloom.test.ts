import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BloomFilter } from './bloom.js';

describe('BloomFilter', () => {
  it('never denies a key it was given, across many layers (any text, any order, repeats)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 400 }), (keys) => {
        const filter = new BloomFilter(1024 * 1024, 4); // layers of 4, 8, 16, ... keys
        for (const key of keys) filter.add(key);
        for (const key of keys) expect(filter.mayHold(key)).toBe(true);
        expect(filter.stats().keys).toBeLessThanOrEqual(new Set(keys).size);
      }),
      { numRuns: 300 },
    );
  });

  it('denies all but about 0.1% of keys it was not given, however many it holds', () => {
    const filter = new BloomFilter(64 * 1024 * 1024);
    const samples = 200_000;
    const rate = () => {
      let wrong = 0;
      for (let i = 0; i < samples; i++) if (filter.mayHold(`absent/${i}`)) wrong++;
      return wrong / samples;
    };
    for (let i = 0; i < 10_000; i++) filter.add(`key/${i}`);
    expect(rate()).toBeLessThan(0.0006);
    for (let i = 10_000; i < 400_000; i++) filter.add(`key/${i}`); // two layers more
    expect(rate()).toBeLessThan(0.0013);
    const { keys, bytes } = filter.stats();
    expect(keys).toBeGreaterThan(399_000); // the rest seemed held already: false positives
    expect(bytes / keys).toBeLessThan(3); // 16 to 19 bits a key, with room for the next layer
  });

  it('gives up within its bytes: then it holds nothing and answers "may hold" for every key', () => {
    const filter = new BloomFilter(200_000);
    for (let i = 0; i < 65_536; i++) filter.add(`key/${i}`); // the first layer: about 127 KiB
    expect(filter.stats()).toMatchObject({ saturated: false, keys: expect.any(Number) });
    expect(filter.mayHold('never added')).toBe(false);
    for (let i = 65_536; i < 70_000; i++) filter.add(`key/${i}`); // the second would pass 200,000
    expect(filter.stats()).toMatchObject({ saturated: true, bytes: 0 });
    expect(filter.saturated).toBe(true);
    expect(filter.mayHold('never added')).toBe(true);
    const off = new BloomFilter(0);
    off.add('a');
    expect(off.stats()).toMatchObject({ saturated: true, bytes: 0, keys: 0 });
    expect(off.mayHold('b')).toBe(true);
  });

  it('refuses bounds that are not whole numbers', () => {
    expect(() => new BloomFilter(-1)).toThrow(RangeError);
    expect(() => new BloomFilter(1.5)).toThrow(RangeError);
    expect(() => new BloomFilter(1024, 0)).toThrow(RangeError);
  });
});
