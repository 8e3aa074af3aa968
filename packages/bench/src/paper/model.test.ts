import { describe, expect, it } from 'vitest';
import { coordinationChart } from '../charts/paper-charts.js';
import type { LatencySummary, OpStats, PhaseResult } from '../results.js';
import { COORDINATION_DEFAULTS, type CoordinationMode, coordinationRows } from './model.js';

const latency = (meanMs: number): LatencySummary => ({
  count: 10,
  meanMs,
  p50Ms: meanMs,
  p99Ms: meanMs * 2,
  p999Ms: meanMs * 3,
  maxMs: meanMs * 4,
});
const ops = (opsPerSec: number, meanMs: number): OpStats => ({
  ops: 10,
  opsPerSec,
  latency: latency(meanMs),
});

function phase(
  mode: CoordinationMode,
  byOp: Record<string, OpStats>,
): PhaseResult & { mode: CoordinationMode } {
  return {
    mode,
    name: `table 2 ${mode}`,
    system: 'tessera',
    target: 'spread',
    durationMs: 1000,
    ops: 20,
    opsPerSec: 100,
    latency: latency(1),
    byOp,
    errors: {},
    siblings: { reads: 0, bySiblings: [0, 0, 0, 0] },
    processes: {
      bench: { rssMaxBytes: 1, cpuMs: 99, cpuShare: 0.1 },
      n0: { rssMaxBytes: 1, cpuMs: 10, cpuShare: 0.01 },
      n1: { rssMaxBytes: 1, cpuMs: 20, cpuShare: 0.02 },
    },
  };
}

describe('Table 2 rows', () => {
  it('take one row per own phase and split the interleaved phase by routing', () => {
    const result = {
      settings: COORDINATION_DEFAULTS,
      cluster: { local: true, urls: [], nodeIds: [], n: 3, r: 2, w: 2 },
      phases: [
        phase('server', { read: ops(50, 4), write: ops(50, 6) }),
        phase('client', { read: ops(50, 2), write: ops(50, 3) }),
        phase('interleaved', {
          'read server': ops(25, 5),
          'write server': ops(25, 7),
          'read client': ops(25, 2.5),
          'write client': ops(25, 3.5),
        }),
      ],
    };
    const rows = coordinationRows(result);
    expect(rows.map((r) => [r.routing, r.mode, r.opsPerSec, r.read?.meanMs, r.write?.p999Ms])).toEqual([
      ['server', 'server', 100, 4, 18],
      ['client', 'client', 100, 2, 9],
      ['server', 'interleaved', 50, 5, 21],
      ['client', 'interleaved', 50, 2.5, 10.5],
    ]);
    // 30 ms of node CPU (the harness's own is left out) over 20 operations.
    expect(rows.map((r) => r.nodeCpuUsPerOp)).toEqual([1_500, 1_500, undefined, undefined]);
    const svg = coordinationChart(result);
    for (const label of [
      'server-driven',
      'client-driven',
      'server, interleaved',
      'client, interleaved',
      'read p99.9',
    ]) {
      expect(svg).toContain(`>${label}</text>`);
    }
  });
});
