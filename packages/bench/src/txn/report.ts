/** Renders a `pnpm bench transactions` run as Markdown, with the paper's statements beside ours. */

import { formatCount, formatErrors, formatMs, renderTable } from '../format.js';
import { nodeCpuUsPerOp } from '../paper/model.js';
import type { LatencySummary, PhaseResult } from '../results.js';
import {
  isMixKind,
  KIND_COST,
  MIX_KINDS,
  mixComparisons,
  PAPER_STATEMENTS,
  type SweepPoint,
  sweepRows,
  type TxnReport,
} from './model.js';

export function renderTxnMarkdown(report: TxnReport): string {
  const { machine, settings: s, cluster } = report;
  const load = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(' ');
  const shape =
    cluster === undefined
      ? 'not started'
      : `${cluster.nodeIds.length} nodes, N=${cluster.n} R=${cluster.r} W=${cluster.w}` +
        `${cluster.durability === undefined ? '' : `, durability ${cluster.durability}`}`;
  const parts = [
    `# Tessera: transactions in the shapes of the DynamoDB paper's Figures 5–8, ${report.startedAt}${report.quick ? ' (--quick)' : ''}`,
    '',
    `Machine: ${machine.cpus} cores (${machine.cpuModel}), Node ${machine.node}, ${machine.platform}; ` +
      `load average ${load(machine.loadAverageStart)} at start, ${load(machine.loadAverageEnd)} at end. ` +
      `Code: commit ${report.revision.commit}${report.revision.dirty ? ' with local changes' : ''}.`,
    `Cluster: ${shape}, started with \`--strong ${s.namespace}\`; all requests to node n0, which ` +
      `coordinates them; ${s.valueBytes}-byte values.`,
  ];
  if (report.sweep.length > 0) parts.push('', renderSweep(report));
  if (report.mix !== undefined) parts.push('', renderMix(report));
  if (report.throughput.length > 0) parts.push('', renderThroughput(report));
  return `${parts.join('\n')}\n`;
}

export function renderSweep(report: TxnReport): string {
  const s = report.settings;
  const header = [
    'items',
    'transactions',
    'p50 ms',
    'p99 ms',
    'max ms',
    'nodes CPU ms/txn',
    'transactGets',
    'p50 ms',
    'p99 ms',
    'max ms',
    'nodes CPU ms/get',
    'errors',
  ];
  const rows = sweepRows(report.sweep).map((r) => [
    String(r.items),
    count(r.write),
    ms(r.write?.p50Ms),
    ms(r.write?.p99Ms),
    ms(r.write?.maxMs),
    ms(r.writeCpuMs),
    count(r.read),
    ms(r.read?.p50Ms),
    ms(r.read?.p99Ms),
    ms(r.read?.maxMs),
    ms(r.readCpuMs),
    formatErrors(r.errors),
  ]);
  return [
    '## Figures 5 and 6: latency against items per transaction',
    '',
    `Put-only transactions of k fresh keys (Figure 6) and transactGet of k distinct written keys ` +
      `(Figure 5), ${s.sweepConnections} in flight (closed loop), ${s.sweepS} s per size and kind after ` +
      `${s.sweepWarmupS} s warmup. Nodes' CPU: all three nodes' CPU time over the transactions.`,
    '',
    renderTable(header, rows, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])),
    '',
    `Paper (5.2): "${PAPER_STATEMENTS.fig56}"`,
    ...growth(report.sweep),
  ].join('\n');
}

/** How the p50 grew from the smallest to the largest size, one line per kind. */
function growth(sweep: readonly SweepPoint[]): string[] {
  if (sweep.length < 2) return [];
  const first = sweep[0]!;
  const last = sweep[sweep.length - 1]!;
  const line = (label: string, a: PhaseResult | undefined, b: PhaseResult | undefined): string[] => {
    if (a === undefined || b === undefined || !(a.latency.p50Ms > 0)) return [];
    const factor = b.latency.p50Ms / a.latency.p50Ms;
    const perItem = (b.latency.p50Ms - a.latency.p50Ms) / (last.items - first.items);
    return [
      `Ours: ${label} p50 grew ${factor.toFixed(1)}× from ${first.items} to ${last.items} items ` +
        `(${formatMs(perItem)} ms per added item).`,
    ];
  };
  return ['', ...line('transaction', first.write, last.write), ...line('transactGet', first.read, last.read)];
}

export function renderMix(report: TxnReport): string {
  const s = report.settings;
  const mix = report.mix!;
  const header = ['operation', 'protocol', 'ops', 'p50 ms', 'p99 ms', 'p50 × plain', 'p99 × plain'];
  const rows = MIX_KINDS.map((kind) => {
    const stats = mix.byOp[kind];
    const base = mix.byOp[KIND_COST[kind].plain]?.latency;
    const l = stats?.latency;
    return [
      KIND_COST[kind].label,
      KIND_COST[kind].rounds,
      stats === undefined ? '0' : formatCount(stats.ops),
      ms(l?.p50Ms),
      ms(l?.p99Ms),
      ratio(l?.p50Ms, base?.p50Ms),
      ratio(l?.p99Ms, base?.p99Ms),
    ];
  });
  const comparisons = mixComparisons(mix).map((c) => [c.label, ratio(c.p50, 1), ratio(c.p99, 1), c.paper]);
  const cpu = nodeCpuUsPerOp(mix);
  return [
    '## Figures 7 and 8: single-item transactions against single operations',
    '',
    `One open-loop phase at ${s.mixRatePerSec} operations/s (at most ${s.mixConnections} in flight), ` +
      `each operation of one of the six kinds drawn at random, so all six meet the same machine; ` +
      `${s.mixS} s after ${s.warmupS} s warmup. Errors: ${formatErrors(mix.errors)}` +
      `${cpu === undefined ? '' : `; nodes' CPU ${formatCount(cpu)} µs per operation on average`}.`,
    '',
    renderTable(header, rows, new Set([2, 3, 4, 5, 6])),
    '',
    renderTable(['ratio', 'ours p50', 'ours p99', 'paper'], comparisons, new Set([1, 2])),
    '',
    `Paper (5.3, Figure 7): "${PAPER_STATEMENTS.fig7}"`,
    '',
    `Paper (5.3, Figure 8): "${PAPER_STATEMENTS.fig8}"`,
  ].join('\n');
}

export function renderThroughput(report: TxnReport): string {
  const header = ['operation', 'ops/s', 'p50 ms', 'p99 ms', 'nodes CPU µs/op', 'errors'];
  const rows = report.throughput.map((p) => {
    const cpu = nodeCpuUsPerOp(p);
    return [
      isMixKind(p.name) ? KIND_COST[p.name].label : p.name,
      formatCount(p.opsPerSec),
      ms(p.latency.p50Ms),
      ms(p.latency.p99Ms),
      cpu === undefined ? '–' : formatCount(cpu),
      formatErrors(p.errors),
    ];
  });
  const s = report.settings;
  return [
    '## Throughput: single-item transactions against single writes',
    '',
    `Each kind alone in a closed loop of ${s.throughputConnections} connections, ${s.throughputS} s ` +
      `after ${Math.min(1, s.warmupS)} s warmup. Nodes' CPU: all three nodes' CPU time per operation.`,
    '',
    renderTable(header, rows, new Set([1, 2, 3, 4])),
  ].join('\n');
}

function ms(value: number | undefined): string {
  return value === undefined ? '–' : formatMs(value);
}

function count(l: LatencySummary | undefined): string {
  return l === undefined ? '–' : formatCount(l.count);
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a / b) || b === 0) return '–';
  return `${(a / b).toFixed(1)}×`;
}
