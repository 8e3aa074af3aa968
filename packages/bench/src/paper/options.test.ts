import { describe, expect, it } from 'vitest';
import { UsageError } from '../options.js';
import { EXPERIMENTS, parsePaperArgs } from './options.js';

describe('pnpm bench paper options', () => {
  it('runs all four experiments with the paper-sized settings by default', () => {
    const o = parsePaperArgs([]);
    expect(o.only).toEqual([...EXPERIMENTS]);
    expect(o.imagesDir).toBe('docs/images');
    expect([o.fig8.nodes, o.fig8.n]).toEqual([30, 3]);
    expect([o.coordination.nodes, o.coordination.n, o.coordination.r, o.coordination.w]).toEqual([
      5, 3, 2, 2,
    ]);
    expect(o.durability.modes).toEqual(['process', 'fsync-one', 'fsync']);
    expect(o.divergence.writers).toEqual([1, 2, 4, 8, 16]);
  });

  it('--quick shortens every phase unless --duration-s says otherwise; lists are checked', () => {
    const q = parsePaperArgs(['--quick']);
    expect([q.divergence.durationS, q.coordination.durationS, q.durability.durationS]).toEqual([2, 4, 5]);
    expect(q.fig8.keys).toBeLessThan(parsePaperArgs([]).fig8.keys);
    const o = parsePaperArgs(['--quick', '--duration-s', '7', '--only', 'fig5,fig8', '--no-charts']);
    expect([o.divergence.durationS, o.durability.durationS]).toEqual([7, 7]);
    expect(o.only).toEqual(['fig5', 'fig8']);
    expect(o.imagesDir).toBeUndefined();
    expect(parsePaperArgs(['--durability-modes', 'process,fsync']).durability.modes).toEqual([
      'process',
      'fsync',
    ]);
    expect(parsePaperArgs(['--connections', '4']).coordination.connections).toBe(4);
    expect(parsePaperArgs([]).durability.ratePerSec).toBe(100);
    expect(parsePaperArgs(['--rate', '0']).coordination.ratePerSec).toBeUndefined();
    expect(parsePaperArgs(['--rate', '40']).durability.ratePerSec).toBe(40);
    expect(() => parsePaperArgs(['--only', 'fig6'])).toThrow(UsageError);
    expect(() => parsePaperArgs(['--durability-modes', 'paper'])).toThrow(UsageError);
    expect(() => parsePaperArgs(['--table2-nodes', '2'])).toThrow(UsageError);
  });
});
