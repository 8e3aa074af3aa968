/** `pnpm bench:path` (scripts/path-bench.mjs) runs every mode on the built server and reports a figure for each. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../scripts/path-bench.mjs', import.meta.url));

describe('pnpm bench:path', () => {
  it('measures CPU per operation of each code path, in one process', async () => {
    const modes = ['put', 'get', 'replica', 'level'];
    const { stdout } = await promisify(execFile)(process.execPath, [
      SCRIPT,
      ...modes,
      '--ops',
      '1000',
      '--rounds',
      '1',
    ]);
    for (const mode of modes) {
      const figure = new RegExp(
        `^${mode}: (\\d+\\.\\d) µs of CPU per operation \\(median of \\d+\\.\\d\\)$`,
        'm',
      ).exec(stdout);
      expect(figure, stdout).not.toBeNull();
      expect(Number(figure![1])).toBeGreaterThan(0);
    }
  }, 60_000);

  it('refuses a mode it does not know', async () => {
    await expect(promisify(execFile)(process.execPath, [SCRIPT, 'nope'])).rejects.toThrow(
      /unknown mode nope/,
    );
  });
});
