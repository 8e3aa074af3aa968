/** Renders a run's results as Markdown: settings, one table row per phase, ratios, processes. */

import { formatCount, formatErrors, formatMib, formatMs, formatPercent, renderTable } from './format.js';
import { BURST_GAP_MS, type LateSummary } from './late-bursts.js';
import type { BenchReport, MachineInfo, OpStats, PhaseResult, Ratios, TargetMode } from './results.js';
import { renderSoak } from './soak-report.js';
import { probeMs, SPEED_PROBE_HASHES } from './speed-probe.js';
import { WAKE_PROBE_HASHES, WAKE_PROBE_IDLE_MS } from './wake-probe.js';

export function renderMarkdown(report: BenchReport): string {
  const { settings, cluster, machine } = report;
  const load = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(' ');
  const lines = [
    `# Tessera benchmark, ${report.startedAt}`,
    '',
    `Machine: ${machine.cpus} cores (${machine.cpuModel}), ${formatMib(machine.memoryBytes)} MiB, Node ${machine.node}, ` +
      `${machine.platform}; load average ${load(machine.loadAverageStart)} at start, ${load(machine.loadAverageEnd)} at end.`,
    ...renderWake(machine.wakeProbe),
    `Code: commit ${report.revision.commit}${report.revision.dirty ? ' with local changes in packages/core or packages/server' : ''}.`,
    `Cluster: ${cluster.nodeIds.length} ${cluster.probe === true ? "nodes of the replication-shape probe, not Tessera's" : 'nodes'} (${cluster.local ? 'started by the harness' : 'given by --url'}), N=${cluster.n} R=${cluster.r} W=${cluster.w}` +
      `${cluster.durability === undefined ? '' : `, durability ${cluster.durability}`}` +
      `${cluster.config === undefined ? '' : `, node config ${cluster.config}`}.`,
    `Load: ${settings.connections} connections${settings.ratePerSec === undefined ? '' : ` at ${settings.ratePerSec} ops/s (open loop)`}, ${settings.durationS} s per phase after ${settings.warmupS} s warmup, ` +
      `${settings.valueBytes}-byte values, ${settings.keys} keys (${settings.distribution}), seed ${settings.seed}.`,
    '',
    renderPhaseTable(report.phases),
    '',
    ...renderSpeed(report.phases),
    ...renderMachineCpu(report.phases, machine.cpus),
    ...renderLate(report.phases),
    ...(report.soak === undefined ? [] : [renderSoak(report.soak), '']),
    renderRatios(report.ratios),
    '',
    renderProcessTable(report.phases),
    '',
    renderRss(report.rssMaxBytes, report.anonMaxBytes),
    '',
  ];
  return lines.join('\n');
}

/** What a wake-up from idle cost at the start (wake-probe.ts), when the run has it. */
function renderWake(probe: MachineInfo['wakeProbe']): string[] {
  if (probe === undefined) return [];
  return [
    `Wake-up cost: ${WAKE_PROBE_HASHES} SHA-256 hashes took ${probe.busyUs.toFixed(0)} µs of CPU back to back and ` +
      `${probe.afterIdleUs.toFixed(0)} µs after ${WAKE_PROBE_IDLE_MS} ms asleep (cold caches): a process that wakes more often per operation, as at partial load, spends more CPU per operation.`,
  ];
}

/** The speed probe around each phase (speed-probe.ts), when the run has it. */
function renderSpeed(phases: readonly PhaseResult[]): string[] {
  const each = phases.flatMap(({ name, speedProbeMs: ms }) =>
    ms === undefined ? [] : [`${name} ${probeMs(ms).toFixed(0)}`],
  );
  if (each.length === 0) return [];
  return [
    `Speed probe (ms for ${SPEED_PROBE_HASHES.toLocaleString('en-US')} SHA-256 hashes on one core, the faster of the probes just before and just after each phase; lower is faster, and only runs at about the same speed compare): ${each.join(', ')}.`,
    '',
  ];
}

function renderMachineCpu(phases: readonly PhaseResult[], cores: number): string[] {
  const each = phases.flatMap(({ name, machineCpu: m }) =>
    m === undefined ? [] : [`${name} ${m.idleCores.toFixed(2)} idle, ${m.stealCores.toFixed(2)} stolen`],
  );
  if (each.length === 0) return [];
  return [
    `Machine CPU (cores of ${cores}, over each measured phase, from /proc/stat; stolen: taken by the host for other guests): ${each.join('; ')}.`,
    '',
  ];
}

/** Per phase, its late operations and their largest bursts (late-bursts.ts), when the run has them. */
export function renderLate(phases: readonly PhaseResult[]): string[] {
  const each = phases.flatMap(({ name, late }) => (late === undefined ? [] : [`${name} ${lateText(late)}`]));
  const thresholdMs = phases.find((p) => p.late !== undefined)?.late?.thresholdMs;
  if (each.length === 0 || thresholdMs === undefined) return [];
  return [
    `Late operations (slower than ${thresholdMs} ms, grouped by when they started: one burst while late starts come less than ${BURST_GAP_MS} ms apart; a tail of a few large bursts is stalls, not queueing): ${each.join('; ')}.`,
    '',
  ];
}

function lateText(late: LateSummary): string {
  if (late.count === 0) return 'none';
  const bursts = late.largest.map(
    (b) =>
      `${b.atS.toFixed(1)} s (${formatCount(b.count)} over ${b.spanMs.toFixed(0)} ms, max ${formatMs(b.maxMs)} ms)`,
  );
  const plural = late.burstCount === 1 ? 'burst' : 'bursts';
  return `${formatCount(late.count)} (${formatPercent(late.share, 2)}) in ${formatCount(late.burstCount)} ${plural}, the largest at ${bursts.join(', ')}`;
}

const PHASE_HEADER = [
  'phase',
  'target',
  'ops/s',
  'p50 ms',
  'p99 ms',
  'p99.9 ms',
  'max ms',
  'errors',
  'reads with 1 / 2 / 3 / 4+ siblings',
];

/** One row per phase; a phase that mixes operation kinds gets a row per kind under it. */
export function renderPhaseTable(phases: readonly PhaseResult[]): string {
  const rows: string[][] = [];
  const numbers = (s: OpStats): string[] => [
    formatCount(s.opsPerSec),
    formatMs(s.latency.p50Ms),
    formatMs(s.latency.p99Ms),
    formatMs(s.latency.p999Ms),
    formatMs(s.latency.maxMs),
  ];
  for (const p of phases) {
    rows.push([p.name, p.target, ...numbers(p), formatErrors(p.errors), formatSiblings(p)]);
    const kinds = Object.entries(p.byOp);
    if (kinds.length > 1) {
      for (const [kind, stats] of kinds)
        rows.push([`${p.name}: ${kind}`, p.target, ...numbers(stats), '', '']);
    }
  }
  return renderTable(PHASE_HEADER, rows, new Set([2, 3, 4, 5, 6]));
}

/**
 * Per phase and process: CPU (in cores), the main thread's wait for a core (share of the phase),
 * CPU per successful operation, max RSS, event-loop delay p99.9.
 */
export function renderProcessTable(phases: readonly PhaseResult[]): string {
  const rows: string[][] = [];
  for (const p of phases) {
    for (const [name, s] of Object.entries(p.processes)) {
      const usPerOp = p.ops > 0 ? (s.cpuMs * 1000) / p.ops : Number.NaN;
      rows.push([
        `${p.name} (${p.target})`,
        name,
        Number.isFinite(s.cpuShare) ? s.cpuShare.toFixed(2) : '–',
        s.waitShare !== undefined && Number.isFinite(s.waitShare) ? s.waitShare.toFixed(2) : '–',
        Number.isFinite(usPerOp) ? formatCount(usPerOp) : '–',
        Number.isFinite(s.rssMaxBytes) ? formatMib(s.rssMaxBytes) : '–',
        formatMs(p.eventLoop?.[name]?.p999Ms ?? Number.NaN),
      ]);
    }
  }
  if (rows.length === 0)
    return 'Processes: not sampled (no /proc, or the processes are not on this machine).';
  return renderTable(
    ['phase', 'process', 'CPU cores', 'waits for a core', 'CPU µs/op', 'max RSS MiB', 'loop p99.9 ms'],
    rows,
    new Set([2, 3, 4, 5, 6]),
  );
}

function renderRatios(ratios: Ratios): string {
  const rows: string[][] = [];
  const add = (label: string, byTarget: Partial<Record<TargetMode, number>>): void => {
    for (const [target, value] of Object.entries(byTarget)) {
      if (value !== undefined) rows.push([label, target, formatPercent(value)]);
    }
  };
  add('put (W) / bare fastify POST', ratios.putOverBarePost);
  add('get (C) / bare fastify GET', ratios.getOverBareGet);
  if (rows.length === 0) return 'Ratios: none (needs workloads W or C and the bare fastify phases).';
  return [
    renderTable(['throughput ratio', 'target', 'value'], rows, new Set([2])),
    '',
    "Each against the mean of the bare phases of its method: before the cluster's phases and, in a full run, after them.",
  ].join('\n');
}

function renderRss(
  rssMaxBytes: Readonly<Record<string, number>>,
  anonMaxBytes: Readonly<Record<string, number>> | undefined,
): string {
  if (Object.keys(rssMaxBytes).length === 0) return 'Memory: not sampled.';
  const list = (bytes: Readonly<Record<string, number>>): string =>
    Object.entries(bytes)
      .map(([name, b]) => `${name} ${formatMib(b)}`)
      .join(', ');
  const rss = `Max RSS over the whole run (MiB): ${list(rssMaxBytes)}.`;
  if (anonMaxBytes === undefined || Object.keys(anonMaxBytes).length === 0) return rss;
  return `${rss}\nMax anonymous RSS (RssAnon: heap and native memory, without the table files LevelDB maps; MiB): ${list(anonMaxBytes)}.`;
}

export function formatSiblings(phase: PhaseResult): string {
  const { reads, bySiblings } = phase.siblings;
  if (reads === 0) return '–';
  return bySiblings.map((n) => formatPercent(n / reads)).join(' / ');
}
