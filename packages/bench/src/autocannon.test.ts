import { describe, expect, it } from 'vitest';
import { autocannonRatios, parseAutocannonArgs } from './autocannon.js';
import { UsageError } from './options.js';

describe('pnpm bench autocannon options', () => {
  it('defaults to the harness settings the ratios are compared with', () => {
    expect(parseAutocannonArgs([])).toEqual({
      help: false,
      connections: 50,
      durationS: 10,
      warmupS: 2,
      valueBytes: 150,
      keys: 10_000,
      force: false,
    });
  });

  it('refuses values outside their range with the flag named', () => {
    expect(() => parseAutocannonArgs(['--connections', '0'])).toThrow(UsageError);
    expect(() => parseAutocannonArgs(['--duration-s', 'ten'])).toThrow(/--duration-s must be a whole number/);
    expect(() => parseAutocannonArgs(['--value-bytes', '1'])).toThrow(/--value-bytes/);
    expect(() => parseAutocannonArgs(['--rate', '5'])).toThrow();
  });
});

describe('pnpm bench autocannon ratios', () => {
  it('divides by the mean of the bare phases before and after the cluster', () => {
    const phases = [
      { name: 'bare GET', perSec: 40_000 },
      { name: 'bare POST', perSec: 30_000 },
      { name: 'Tessera PUT, fresh keys', perSec: 6_000 },
      { name: 'Tessera GET, zipfian over those keys', perSec: 9_000 },
      { name: 'bare GET (after)', perSec: 20_000 },
      { name: 'bare POST (after)', perSec: 10_000 },
    ];
    expect(autocannonRatios(phases)).toEqual({ putOverPost: 6_000 / 20_000, getOverGet: 9_000 / 30_000 });
    // Stopped before the bare phases after the cluster's: against those before it alone.
    expect(autocannonRatios(phases.slice(0, 4)).putOverPost).toBe(6_000 / 30_000);
    expect(autocannonRatios(phases.slice(0, 2)).putOverPost).toBeNaN();
  });
});
