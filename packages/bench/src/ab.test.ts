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
      pairs: 2,
      rounds: 4,
      windowS: 4,
      keys: 10_000,
    });
    expect(parseAbArgs(['--against', '/x', '--workloads', 'a,w']).workloads).toEqual(['A', 'W']);
    expect(() => parseAbArgs(['--against', '/x', '--workloads', 'W,Z'])).toThrow(/"Z" is not one of/);
    expect(() => parseAbArgs(['--against', '/x', '--rounds', '0'])).toThrow(UsageError);
    expect(() => parseAbArgs(['--against', '/x', '--pairs', '11'])).toThrow(UsageError);
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
    expect(sampleOf('W', 'this', 3, { ops: 5_000, opsPerSec: 500, processes }, 1)).toEqual({
      workload: 'W',
      side: 'this',
      pair: 1,
      round: 3,
      opsPerSec: 500,
      n0UsPerOp: 100,
      replicasUsPerOp: 50,
    });
  });

  it('compares two pairs of clusters window by window and prints the paired tables (one round each)', async () => {
    const lines: string[] = [];
    const io: SubcommandIo = {
      out: (line) => lines.push(line),
      progress: { update: () => {}, done: () => {} },
      signal: new AbortController().signal,
    };
    const args = [
      '--against',
      ROOT,
      '--pairs',
      '2',
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
          `\\| ${workload} \\| CPU µs/op, n0 \\| \\d+ \\| \\d+ \\| \\d\\.\\d{3} \\| [\\d.]+-[\\d.]+ \\| \\d of 2 \\|`,
        ),
      );
      // Per pair: its one round's ratios.
      for (const pair of [1, 2]) {
        expect(table).toMatch(
          new RegExp(
            `\\| ${workload} \\| ${pair} \\| 1 \\| \\d\\.\\d{3} \\| \\d\\.\\d{3} \\| \\d\\.\\d{3} \\|`,
          ),
        );
      }
    }
    // Each pair started its two clusters in the other order.
    expect(lines.filter((l) => /^pair \d+, (this|other):/.test(l)).map((l) => l.split(':')[0])).toEqual([
      'pair 1, other',
      'pair 1, this',
      'pair 2, this',
      'pair 2, other',
    ]);
  }, 120_000);
});
