import { describe, expect, it } from 'vitest';
// The built harness (pnpm test builds first): it starts the bare server from its built file beside it.
import { runBench } from '../dist/bench.js';
import { parseBenchArgs } from '../dist/options.js';

describe('pnpm bench, end to end', () => {
  it('runs the bare baseline on both sides of the cluster, and divides by their mean', async () => {
    const options = parseBenchArgs([
      '--workloads',
      'W',
      '--duration-s',
      '1',
      '--warmup-s',
      '0.2',
      '--connections',
      '4',
      '--force',
    ]);
    const lines: string[] = [];
    const report = await runBench(options, {
      log: (line) => lines.push(line),
      progress: { update: () => {}, done: () => {} },
      signal: new AbortController().signal,
    });
    expect(report.phases.map((p) => p.name)).toEqual([
      'bare GET',
      'bare POST',
      'W',
      'bare GET (after)',
      'bare POST (after)',
    ]);
    const ops = (name: string) => report.phases.find((p) => p.name === name)?.opsPerSec ?? Number.NaN;
    for (const name of ['bare POST', 'W', 'bare POST (after)']) expect(ops(name)).toBeGreaterThan(0);
    const meanPost = (ops('bare POST') + ops('bare POST (after)')) / 2;
    expect(report.ratios.putOverBarePost.one).toBeCloseTo(ops('W') / meanPost, 9);
    if (process.platform === 'linux') {
      const w = report.phases.find((p) => p.name === 'W');
      expect(w?.machineCpu?.idleCores).toBeGreaterThanOrEqual(0);
      expect(w?.processes.n0?.waitShare).toBeGreaterThanOrEqual(0);
    }
  }, 120_000);
});
