import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { abCommand, otherCli, parseAbArgs, sampleOf } from './ab.js';
import { UsageError } from './options.js';
import type { SubcommandIo } from './paper/main.js';

/** This checkout's root: `ab` may compare it with itself. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('pnpm bench ab', () => {
  it('needs --against, and takes workloads and counts within their ranges', () => {
    expect(() => parseAbArgs([])).toThrow(/--against DIR is required/);
    expect(parseAbArgs(['--against', '/x'])).toMatchObject({
      workloads: ['W', 'C'],
      rounds: 8,
      windowS: 4,
      keys: 10_000,
    });
    expect(parseAbArgs(['--against', '/x', '--workloads', 'a,w']).workloads).toEqual(['A', 'W']);
    expect(() => parseAbArgs(['--against', '/x', '--workloads', 'W,Z'])).toThrow(/"Z" is not one of/);
    expect(() => parseAbArgs(['--against', '/x', '--rounds', '0'])).toThrow(UsageError);
    expect(parseAbArgs(['--help']).help).toBe(true);
  });

  it('says how to build another checkout that is not built', async () => {
    await expect(otherCli('/nonexistent-checkout')).rejects.toThrow(/build that checkout first/);
    await expect(otherCli(ROOT)).resolves.toMatch(/packages\/server\/dist\/bin\/main\.js$/);
  });

  it('takes n0 and the other nodes apart, per successful operation', () => {
    const processes = {
      n0: { cpuMs: 500, cpuShare: 0.5, rssMaxBytes: 1 },
      n1: { cpuMs: 100, cpuShare: 0.1, rssMaxBytes: 1 },
      n2: { cpuMs: 150, cpuShare: 0.15, rssMaxBytes: 1 },
    };
    expect(sampleOf('W', 'this', 3, { ops: 5_000, opsPerSec: 500, processes })).toEqual({
      workload: 'W',
      side: 'this',
      round: 3,
      opsPerSec: 500,
      n0UsPerOp: 100,
      replicasUsPerOp: 50,
    });
  });

  it('compares two clusters window by window and prints the paired table (one round)', async () => {
    const lines: string[] = [];
    const io: SubcommandIo = {
      out: (line) => lines.push(line),
      progress: { update: () => {}, done: () => {} },
      signal: new AbortController().signal,
    };
    const args = [
      '--against',
      ROOT,
      '--rounds',
      '1',
      '--window-s',
      '1',
      '--warmup-s',
      '0',
      '--keys',
      '100',
      '--workloads',
      'W,C',
      '--force',
    ];
    expect(await abCommand(args, io)).toBe(0);
    const table = lines.join('\n');
    for (const workload of ['W', 'C']) {
      expect(table).toMatch(
        new RegExp(
          `\\| ${workload} \\| CPU µs/op, n0 \\| \\d+ \\| \\d+ \\| \\d\\.\\d{3} \\| [\\d.]+-[\\d.]+ \\| \\d of 1 \\|`,
        ),
      );
    }
  }, 120_000);
});
