/**
 * The paper's figures from a `pnpm bench paper` run: Figure 8 and Figure 5 as line charts,
 * Table 2 as grouped bars, section 6.3 as stacked shares. Each is a file name and its SVG text.
 */
import { type Fig8Result, popularityLabel } from '../paper/fig8.js';
import {
  type CoordinationResult,
  type CoordinationRow,
  coordinationRows,
  type DivergenceResult,
  type DurabilityResult,
} from '../paper/model.js';
import type { PaperReport } from '../paper/results.js';
import { renderGroupedBars, renderStackedShares } from './bar-chart.js';
import { type LineSeries, renderLineChart } from './line-chart.js';
import { PALETTE } from './svg.js';

export interface ChartFile {
  readonly name: string;
  readonly svg: string;
}

/** Which run each experiment's chart was drawn from, by experiment. */
export type ChartSources = Partial<Record<'fig8' | 'divergence' | 'table2' | 'fig5', PaperReport>>;

export function paperCharts(sources: ChartSources): ChartFile[] {
  const files: ChartFile[] = [];
  if (sources.fig8?.fig8 !== undefined)
    files.push({ name: 'paper-fig8-load-balance.svg', svg: fig8Chart(sources.fig8.fig8) });
  if (sources.divergence?.divergence !== undefined) {
    files.push({ name: 'paper-6.3-versions.svg', svg: divergenceChart(sources.divergence.divergence) });
  }
  if (sources.table2?.coordination !== undefined) {
    files.push({
      name: 'paper-table2-coordination.svg',
      svg: coordinationChart(sources.table2.coordination),
    });
  }
  if (sources.fig5?.durability !== undefined) {
    files.push({ name: 'paper-fig5-durability.svg', svg: durabilityChart(sources.fig5.durability) });
  }
  return files;
}

export function fig8Chart(result: Fig8Result): string {
  const series: LineSeries[] = result.series.flatMap((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const pts = (strategy: 1 | 3): [number, number][] =>
      s.points.filter((p) => p.strategy === strategy).map((p) => [p.metadataBytes, p.efficiency]);
    const label = popularityLabel(s.popularity);
    return [
      { label: `strategy 3, ${label}`, points: pts(3), color },
      { label: `strategy 1, ${label}`, points: pts(1), color, dashed: true },
    ];
  });
  return renderLineChart({
    title: `Figure 8: load-balancing efficiency, ${result.settings.nodes} nodes, N=${result.settings.n}`,
    xLabel: 'membership data per node (bytes, log scale)',
    yLabel: 'efficiency (mean load / max load)',
    xScale: 'log',
    yMin: 0,
    yMax: 1,
    series,
  });
}

export function durabilityChart(result: DurabilityResult): string {
  const series: LineSeries[] = [];
  for (const run of result.runs) {
    if ('skipped' in run) continue;
    const points = (run.phase.windows ?? [])
      .filter((w) => w.count > 0)
      .map((w): [number, number] => [w.startS, w.p999Ms]);
    series.push({ label: run.mode, points });
  }
  return renderLineChart({
    title: 'Figure 5: p99.9 write latency per second, buffered vs durable',
    xLabel: 'time (s)',
    yLabel: 'p99.9 write latency (ms)',
    xScale: 'linear',
    series,
  });
}

const TABLE2_METRICS: readonly (readonly [string, (r: CoordinationRow) => number | undefined])[] = [
  ['read p99.9', (r) => r.read?.p999Ms],
  ['write p99.9', (r) => r.write?.p999Ms],
  ['read mean', (r) => r.read?.meanMs],
  ['write mean', (r) => r.write?.meanMs],
];

export function coordinationChart(result: CoordinationResult): string {
  const rows = coordinationRows(result);
  const series = rows.map((r) =>
    r.mode === 'interleaved' ? `${r.routing}, interleaved` : `${r.routing}-driven`,
  );
  const groups = TABLE2_METRICS.map(([label, pick]) => ({
    label,
    values: rows.map((r) => pick(r) ?? Number.NaN),
  }));
  return renderGroupedBars({
    title: `Table 2: server- vs client-driven coordination, ${result.settings.nodes} nodes`,
    xLabel: 'latency',
    yLabel: 'ms',
    series,
    groups,
    valueLabel: (v) => (v < 10 ? v.toFixed(1) : v.toFixed(0)),
  });
}

export function divergenceChart(result: DivergenceResult): string {
  return renderStackedShares({
    title: 'Section 6.3: versions seen by reads, by concurrent writers',
    xLabel: 'concurrent writers (read-modify-write on the same keys)',
    yLabel: 'share of reads',
    series: ['1 version', '2 versions', '3 versions', '4+ versions'],
    groups: result.runs.map((r) => ({ label: String(r.writers), values: r.phase.siblings.bySiblings })),
  });
}
