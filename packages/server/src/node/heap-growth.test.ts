import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.js';
import { HEAP_GROWING_PERCENT_DEFAULT, heapGrowingFlag } from './heap-growth.js';

describe('heap growth (heapGrowingPercent)', () => {
  it("turns the setting into V8's flag, 0 giving V8 its own choice back", () => {
    expect(heapGrowingFlag(200)).toBe('--heap-growing-percent=200');
    expect(heapGrowingFlag(0)).toBe('--heap-growing-percent=0');
    expect(() => heapGrowingFlag(-1)).toThrow(RangeError);
    expect(() => heapGrowingFlag(1.5)).toThrow(RangeError);
  });

  it('defaults to 200 (three times the live heap) and refuses values outside 0 to 1,000', () => {
    const base = { nodeId: 'n0', http: '127.0.0.1:7000', peer: '127.0.0.1:8000', dataDir: '/tmp/x' };
    expect(parseConfig(base).heapGrowingPercent).toBe(HEAP_GROWING_PERCENT_DEFAULT);
    expect(HEAP_GROWING_PERCENT_DEFAULT).toBe(200);
    expect(parseConfig({ ...base, heapGrowingPercent: 0 }).heapGrowingPercent).toBe(0);
    expect(() => parseConfig({ ...base, heapGrowingPercent: -1 })).toThrow(/heapGrowingPercent/);
    expect(() => parseConfig({ ...base, heapGrowingPercent: 5_000 })).toThrow(/heapGrowingPercent/);
  });
});
