import { describe, expect, it } from 'vitest';
import { IndexedMemo } from './memo.js';

describe('IndexedMemo', () => {
  it('makes a value once per object and index, and keeps none for an index out of its range', () => {
    const memo = new IndexedMemo<object, { made: number }>(3);
    let made = 0;
    const make = (_key: object, _index: number) => ({ made: ++made });
    const a = {};
    const b = {};
    const first = memo.get(a, 1, make);
    expect(memo.get(a, 1, make)).toBe(first);
    expect(memo.get(a, 2, make)).not.toBe(first);
    expect(memo.get(b, 1, make)).not.toBe(first);
    expect(made).toBe(3);
    for (const outside of [-1, 4, 1.5]) {
      expect(memo.get(a, outside, make)).not.toBe(memo.get(a, outside, make));
    }
  });
});
