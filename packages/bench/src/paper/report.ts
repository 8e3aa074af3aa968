/** Renders a `pnpm bench paper` run as Markdown: one section per experiment, ours beside the paper's. */
import { formatCount, formatErrors, formatMs, renderTable } from '../format.js';
import type { PhaseResult } from '../results.js';
import { type Fig8Result, popularityLabel } from './fig8.js';
import {
  type CoordinationResult,
  coordinationRows,
  type DivergenceResult,
  type DurabilityResult,
  versionShares,
} from './model.js';
import { PAPER_TABLE2, type PaperReport } from './results.js';

export function renderPaperMarkdown(report: PaperReport): string {
  const { machine } = report;
  const load = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(' ');
  const parts = [
    `# Tessera: the Dynamo paper's section 6, ${report.startedAt}${report.quick ? ' (--quick)' : ''}`,
    '',
    `Machine: ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, ${machine.platform}; ` +
      `load average ${load(machine.loadAverageStart)} at start, ${load(machine.loadAverageEnd)} at end. ` +
      `Code: commit ${report.revision.commit}${report.revision.dirty ? ' with local changes' : ''}.`,
  ];
  if (report.fig8 !== undefined) parts.push('', renderFig8(report.fig8));
  if (report.divergence !== undefined) parts.push('', renderDivergence(report.divergence));
  if (report.coordination !== undefined) parts.push('', renderCoordination(report.coordination));
  if (report.durability !== undefined) parts.push('', renderDurability(report.durability));
  return `${parts.join('\n')}\n`;
}

export function renderFig8(result: Fig8Result): string {
  const s = result.settings;
  const header = ['popularity', 'strategy', 'T or Q', 'metadata bytes', 'efficiency', 'min–max'];
  const rows = result.series.flatMap((series) =>
    series.points.map((p) => [
      popularityLabel(series.popularity),
      String(p.strategy),
      p.strategy === 1 ? `T=${p.parameter}` : `Q=${p.parameter}`,
      formatCount(p.metadataBytes),
      p.efficiency.toFixed(3),
      p.strategy === 1 ? `${p.efficiencyMin.toFixed(3)}–${p.efficiencyMax.toFixed(3)}` : '',
    ]),
  );
  const hottest = result.series
    .map((x) => `${popularityLabel(x.popularity)} ${(x.hottestKeyShare * 100).toFixed(2)}%`)
    .join(', ');
  return [
    '## Figure 8: load-balancing efficiency (simulation)',
    '',
    `S=${s.nodes} nodes, N=${s.n}; ${formatCount(s.requests)} requests over ${formatCount(s.keys)} keys; ` +
      `strategy 1 averaged over ${s.draws} token draws; hottest key's share of requests: ${hottest}; ` +
      `${(result.elapsedMs / 1000).toFixed(1)} s.`,
    '',
    renderTable(header, rows, new Set([3, 4])),
  ].join('\n');
}

export function renderDivergence(result: DivergenceResult): string {
  const s = result.settings;
  const header = ['writers', 'rmw/s', 'reads', '1 version', '2', '3', '4+', 'errors'];
  const rows = result.runs.map(({ writers, phase }) => [
    String(writers),
    formatCount(phase.opsPerSec),
    formatCount(phase.siblings.reads),
    ...versionShares(phase).map(formatShare),
    formatErrors(phase.errors),
  ]);
  rows.push(['paper (production)', '', '', '99.94%', '0.00057%', '0.00047%', '0.00009%', '']);
  return [
    '## 6.3: versions seen by reads',
    '',
    `${s.nodes} nodes, N=${s.n} R=${s.r} W=${s.w}; read-modify-write on ${s.keys} shared keys, ` +
      `${s.durationS} s per writer count after ${s.warmupS} s warmup.`,
    '',
    renderTable(header, rows, new Set([1, 2, 3, 4, 5, 6])),
  ].join('\n');
}

export function renderCoordination(result: CoordinationResult): string {
  const s = result.settings;
  const header = [
    'coordination',
    'measured',
    'ops/s',
    'read p99.9 ms',
    'write p99.9 ms',
    'read mean ms',
    'write mean ms',
    'node CPU µs/op',
    'errors',
  ];
  const rows = coordinationRows(result).map((r) => [
    `${r.routing}-driven`,
    r.mode === 'interleaved' ? 'interleaved' : 'own phase',
    formatCount(r.opsPerSec),
    formatMs(r.read?.p999Ms ?? Number.NaN),
    formatMs(r.write?.p999Ms ?? Number.NaN),
    formatMs(r.read?.meanMs ?? Number.NaN),
    formatMs(r.write?.meanMs ?? Number.NaN),
    r.nodeCpuUsPerOp === undefined ? '–' : formatCount(r.nodeCpuUsPerOp),
    formatErrors(r.errors),
  ]);
  for (const routing of ['server', 'client'] as const) {
    const t = PAPER_TABLE2[routing];
    rows.push([
      `${routing}-driven`,
      'paper',
      '',
      String(t.readP999Ms),
      String(t.writeP999Ms),
      String(t.readMeanMs),
      String(t.writeMeanMs),
      '',
      '',
    ]);
  }
  return [
    '## Table 2: client-driven vs server-driven coordination',
    '',
    `${s.nodes} nodes, N=${s.n} R=${s.r} W=${s.w}; ${load(s)}, ` +
      `${Math.round(s.readShare * 100)}% reads of ${formatCount(s.keys)} keys, the rest writes of fresh keys; ` +
      `${s.durationS} s per phase after ${s.warmupS} s warmup (interleaved: errors are the whole phase's).`,
    '',
    renderTable(header, rows, new Set([2, 3, 4, 5, 6, 7])),
  ].join('\n');
}

export function renderDurability(result: DurabilityResult): string {
  const s = result.settings;
  const header = [
    'durability',
    'writes/s',
    'mean ms',
    'p50 ms',
    'p99.9 ms',
    'per-second p99.9: median',
    'worst',
    'errors',
  ];
  const rows = result.runs.map((run) => {
    if ('skipped' in run) return [run.mode, 'skipped: the nodes refused this mode', '', '', '', '', '', ''];
    const p = run.phase;
    const perSecond = windowP999s(p);
    return [
      run.mode,
      formatCount(p.opsPerSec),
      formatMs(p.latency.meanMs),
      formatMs(p.latency.p50Ms),
      formatMs(p.latency.p999Ms),
      formatMs(median(perSecond)),
      formatMs(Math.max(...perSecond)),
      formatErrors(p.errors),
    ];
  });
  return [
    '## Figure 5: buffered vs durable writes',
    '',
    `${s.nodes} nodes, N=${s.n} R=${s.r} W=${s.w}; ${load(s)} writing fresh keys, ` +
      `${s.durationS} s per mode after ${s.warmupS} s warmup, p99.9 per ${s.windowMs / 1000} s window.`,
    '',
    renderTable(header, rows, new Set([1, 2, 3, 4, 5, 6])),
  ].join('\n');
}

/** How the load was offered: a fixed rate (open loop) or a number of closed-loop connections. */
function load(s: { readonly ratePerSec: number | undefined; readonly connections: number }): string {
  return s.ratePerSec === undefined
    ? `closed loop of ${s.connections} connections`
    : `open loop at ${s.ratePerSec} operations/s (at most ${s.connections} in flight)`;
}

/** The p99.9 of each window that saw operations. */
export function windowP999s(phase: PhaseResult): number[] {
  return (phase.windows ?? []).filter((w) => w.count > 0).map((w) => w.p999Ms);
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function formatShare(share: number): string {
  if (!Number.isFinite(share)) return '–';
  if (share === 0) return '0%';
  return share >= 0.001 ? `${(share * 100).toFixed(2)}%` : `${(share * 100).toPrecision(2)}%`;
}
