import { describe, expect, it } from 'vitest';
import type { OpStats, PhaseResult } from '../results.js';
import { MIX_KINDS, mixComparisons, sweepRows, TXN_DEFAULTS, type TxnReport } from './model.js';
import { renderTxnMarkdown } from './report.js';

function stats(p50Ms: number, p99Ms: number, ops = 100): OpStats {
  return {
    ops,
    opsPerSec: ops / 10,
    latency: { count: ops, meanMs: p50Ms, p50Ms, p99Ms, p999Ms: p99Ms, maxMs: p99Ms * 1.5 },
  };
}

function phase(name: string, p50Ms: number, byOp: Record<string, OpStats> = {}, cpuMs = 1_000): PhaseResult {
  const s = stats(p50Ms, p50Ms * 3);
  return {
    name,
    system: 'tessera',
    target: 'one',
    durationMs: 10_000,
    ops: s.ops,
    opsPerSec: s.opsPerSec,
    latency: s.latency,
    byOp,
    errors: {},
    siblings: { reads: 0, bySiblings: [0, 0, 0, 0] },
    processes: {
      bench: { rssMaxBytes: 1, cpuMs: 99_999, cpuShare: 1 },
      n0: { rssMaxBytes: 1, cpuMs, cpuShare: 0.1 },
      n1: { rssMaxBytes: 1, cpuMs: cpuMs / 2, cpuShare: 0.05 },
    },
  };
}

const P50: Record<(typeof MIX_KINDS)[number], number> = {
  'plain get': 1,
  'strong get': 3,
  'transactGet 1': 5,
  'plain put': 2,
  'strong put': 3.5,
  'transaction 1': 14,
};

const report: TxnReport = {
  kind: 'transactions',
  startedAt: '2026-11-24T10:00:00.000Z',
  finishedAt: '2026-11-24T10:01:30.000Z',
  revision: { commit: 'abc123', dirty: false },
  machine: {
    cpus: 2,
    cpuModel: 'Test CPU',
    memoryBytes: 1,
    node: '20.20.2',
    platform: 'linux x64',
    loadAverageStart: [0.5, 0.5, 0.5],
    loadAverageEnd: [1, 1, 1],
  },
  quick: false,
  settings: { ...TXN_DEFAULTS, items: [1, 100] },
  cluster: { local: true, urls: [], nodeIds: ['n0', 'n1', 'n2'], n: 3, r: 2, w: 2, durability: 'process' },
  sweep: [
    { items: 1, write: phase('transaction 1', 12), read: phase('transactGet 1', 5) },
    {
      items: 100,
      write: { ...phase('transaction 100', 240), errors: { TRANSACTION_CANCELED: 2 } },
      read: phase('transactGet 100', 230),
    },
  ],
  mix: phase('mix', 3, Object.fromEntries(MIX_KINDS.map((kind) => [kind, stats(P50[kind], P50[kind] * 4)]))),
  throughput: [phase('plain put', 7), phase('transaction 1', 130)],
};

describe('transactions report', () => {
  it('compares the kinds of the mix as the paper does, at p50 and p99', () => {
    const byLabel = Object.fromEntries(mixComparisons(report.mix!).map((c) => [c.label, c]));
    expect(byLabel['transaction (1 put) / strong put']!.p50).toBeCloseTo(4);
    expect(byLabel['transactGet (1 key) / strong get']!.p99).toBeCloseTo(5 / 3);
    expect(byLabel['transaction (1 put) / plain put']!.p50).toBeCloseTo(7);
  });

  it("counts the nodes' CPU per transaction without the harness, and adds errors of both kinds", () => {
    const [small, large] = sweepRows(report.sweep);
    // n0 1,000 ms + n1 500 ms over 100 transactions; the harness's 99,999 ms are left out.
    expect(small!.writeCpuMs).toBeCloseTo(15);
    expect(large!.errors).toEqual({ TRANSACTION_CANCELED: 2 });
  });

  it('renders the three tables with the paper beside ours', () => {
    const md = renderTxnMarkdown(report);
    expect(md).toContain('Code: commit abc123.');
    expect(md).toContain('| 1 | 100 | 12.0 | 36.0 | 54.0 | 15.0 | 100 | 5.00 | 15.0 | 22.5 | 15.0 | 0 |');
    expect(md).toContain('2 (TRANSACTION_CANCELED 2)');
    expect(md).toContain('Ours: transaction p50 grew 20.0× from 1 to 100 items (2.30 ms per added item).');
    expect(md).toContain(
      '| transaction, 1 put | 4 rounds (record, intent, commit, settle), 8 round trips | 100 | 14.0 | 56.0 | 7.0× | 7.0× |',
    );
    expect(md).toContain(
      '| transaction (1 put) / strong put | 4.0× | 4.0× | about 4× (Figure 8, vs PutItem) |',
    );
    expect(md).toContain('slightly less than 2x');
    expect(md).toMatch(/\| plain put \(W=2 of N=3\) \| 10 \| 7\.00 \| 21\.0 \| 15,000 \| 0 \|/);
  });
});
