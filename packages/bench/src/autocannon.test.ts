import { describe, expect, it } from 'vitest';
import { parseAutocannonArgs } from './autocannon.js';
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
