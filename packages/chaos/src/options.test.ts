/** The chaos options: fault windows from flags or code, and a clear refusal of a bad range. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ChaosUsageError, chaosOptions, parseChaosArgs } from './options.js';

/** The built `pnpm chaos` (pnpm test builds first). */
const CHAOS_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function fromFlags(argv: string[]) {
  const input = parseChaosArgs(argv);
  if (input === 'help') throw new Error('unexpected help');
  return chaosOptions(input);
}

describe('chaos fault windows', () => {
  it('hold each fault 3-6 s with 0.5-2 s between faults unless told otherwise', () => {
    const options = fromFlags([]);
    expect(options.faultHoldMs).toEqual([3_000, 6_000]);
    expect(options.faultGapMs).toEqual([500, 2_000]);
  });

  it('take MIN-MAX from the flags and [min, max] from code', () => {
    const options = fromFlags(['--fault-hold-ms', '2000-4000', '--fault-gap-ms', '300-1200']);
    expect(options.faultHoldMs).toEqual([2_000, 4_000]);
    expect(options.faultGapMs).toEqual([300, 1_200]);
    expect(chaosOptions({ faultHoldMs: [100, 100] }).faultHoldMs).toEqual([100, 100]);
  });

  it('refuse a range that is not MIN-MAX with MIN <= MAX, saying what to give', () => {
    expect(() => fromFlags(['--fault-hold-ms', '6000-3000'])).toThrow(
      /faultHoldMs: use MIN-MAX with 0 <= MIN <= MAX/,
    );
    expect(() => fromFlags(['--fault-gap-ms', '500'])).toThrow(
      /faultGapMs: use MIN-MAX in ms, e.g. 3000-6000/,
    );
    expect(() => chaosOptions({ faultGapMs: [-1, 5] })).toThrow(/faultGapMs: use MIN-MAX with 0 <= MIN/);
  });
});

describe('pnpm chaos with a bad option', () => {
  it('is a usage error that says where the options are', () => {
    expect(() => fromFlags(['--no-such-flag'])).toThrow(ChaosUsageError);
    expect(() => fromFlags(['--no-such-flag'])).toThrow(
      /Unknown option '--no-such-flag'.*See pnpm chaos --help\.$/,
    );
    expect(() => fromFlags(['--fault-gap-ms', '500'])).toThrow(ChaosUsageError);
  });

  it('prints the message without a stack trace and exits 2, before starting anything', async () => {
    const failed = await promisify(execFile)(process.execPath, [CHAOS_MAIN, '--fault-gap-ms', '500']).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/^chaos: Invalid chaos options: faultGapMs: use MIN-MAX in ms/);
    expect(failed?.stderr).not.toMatch(/\n\s+at /);
  });
});
