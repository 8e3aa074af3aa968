import { describe, expect, it } from 'vitest';
import { UsageError } from '../options.js';
import { TXN_DEFAULTS } from './model.js';
import { parseTxnArgs } from './options.js';

describe('pnpm bench transactions options', () => {
  it("defaults to the paper's sizes up to 100 items, 900-byte values, and the throughput phases", () => {
    const { settings: s, quick } = parseTxnArgs([]);
    expect(quick).toBe(false);
    expect(s.items).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
    expect([s.nodes, s.n, s.r, s.w, s.namespace, s.valueBytes]).toEqual([3, 3, 2, 2, 'bench', 900]);
    expect([s.sweepConnections, s.mixRatePerSec, s.throughput]).toEqual([1, 150, true]);
    expect(s.readKeys).toBeGreaterThanOrEqual(100);
  });

  it('--quick shortens phases unless told otherwise; flags are checked', () => {
    const q = parseTxnArgs(['--quick']).settings;
    expect(q.items).toEqual([1, 4, 16, 100]);
    expect(q.sweepS).toBeLessThan(TXN_DEFAULTS.sweepS);
    const o = parseTxnArgs(['--quick', '--sweep-s', '7', '--items', '3,30', '--no-throughput']);
    expect([o.settings.sweepS, o.settings.throughput]).toEqual([7, false]);
    expect(o.settings.items).toEqual([3, 30]);
    expect(parseTxnArgs(['--connections', '8']).settings.mixConnections).toBe(8);
    expect(parseTxnArgs(['--connections', '8']).settings.throughputConnections).toBe(8);
    expect(parseTxnArgs(['--durability', 'fsync']).settings.durability).toBe('fsync');
    expect(() => parseTxnArgs(['--items', '101'])).toThrow(UsageError);
    expect(() => parseTxnArgs(['--items', '0'])).toThrow(UsageError);
    expect(() => parseTxnArgs(['--namespace', 'a/b'])).toThrow(UsageError);
    expect(() => parseTxnArgs(['--durability', 'disk'])).toThrow(UsageError);
    expect(() => parseTxnArgs(['--rate', 'fast'])).toThrow(UsageError);
  });
});
