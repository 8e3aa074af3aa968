/** The soak section of a run's Markdown: a row per window, a row per window and node, the verdict. */
import { formatCount, formatMib, formatMs, formatPercent, renderTable } from './format.js';
import { GROWTH_BYTES_MIN, GROWTH_SHARE, type NodeGrowth } from './soak-memory.js';
import { type SoakResult, type SoakVerdict, THROUGHPUT_SHARE_MIN } from './soak-minutes.js';

export function renderSoak(soak: SoakResult): string {
  const unit = soak.windowS === 60 ? 'minute' : `${soak.windowS} s window`;
  const machineOf = new Map(soak.machine.map((m) => [m.minute, m]));
  const minuteRows = soak.minutes.map((m) => {
    const machine = machineOf.get(m.minute);
    return [
      String(m.minute),
      `${seconds(m.startS)}–${seconds(m.startS + m.lengthS)}`,
      formatCount(m.opsPerSec),
      Number.isFinite(m.vsFirst) ? formatPercent(m.vsFirst) : '–',
      formatMs(m.p50Ms),
      formatMs(m.p99Ms),
      formatMs(m.p999Ms),
      formatMs(m.maxMs),
      machine !== undefined && Number.isFinite(machine.nodeCpuUsPerOp)
        ? machine.nodeCpuUsPerOp.toFixed(0)
        : '–',
      machine?.speedProbeMs === undefined ? '–' : machine.speedProbeMs.toFixed(0),
      machine?.stealCores === undefined ? '–' : machine.stealCores.toFixed(2),
    ];
  });
  const nodeRows = soak.nodes.map((n) => [
    String(n.minute),
    n.node,
    Number.isFinite(n.cpuCores) ? n.cpuCores.toFixed(2) : '–',
    Number.isFinite(n.waitShare) ? n.waitShare.toFixed(2) : '–',
    `${mib(n.heapUsedMinBytes)}–${mib(n.heapUsedMaxBytes)}`,
    mib(n.rssMaxBytes),
    mib(n.anonMaxBytes),
    n.loop === undefined ? '–' : formatMs(n.loop.p999Ms),
  ]);
  return [
    `## Soak: per ${unit}`,
    '',
    renderTable(
      [
        unit,
        'seconds',
        'ops/s',
        'vs first',
        'p50 ms',
        'p99 ms',
        'p99.9 ms',
        'max ms',
        'nodes CPU µs/op',
        'speed probe ms',
        'host stole (cores)',
      ],
      minuteRows,
      new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]),
    ),
    '',
    "Nodes CPU µs/op: every node's CPU in the window, summed, per operation. Speed probe: the fixed load of the phase table's probe, timed on a thread of its own at every sample of the window (every 5 s at most), under the load, their median (lower is faster). On a shared VM both move with the host; a sag of the nodes' own shows as CPU per operation rising while the probe stays. Host stole: the cores the hypervisor took from this VM over the window (/proc/stat steal).",
    '',
    renderTable(
      [
        unit,
        'node',
        'CPU cores',
        'waits for a core',
        'heap used MiB (min–max)',
        'max RSS MiB',
        'max anon RSS MiB',
        'loop p99.9 ms',
      ],
      nodeRows,
      new Set([2, 3, 4, 5, 6, 7]),
    ),
    '',
    ...verdictLines(soak.verdict, unit),
  ].join('\n');
}

export function verdictLines(v: SoakVerdict, unit: string): string[] {
  if (v.lowest === undefined || v.throughputOk === undefined) {
    return [`Verdict: none (${v.fullMinutes} full ${unit}s; at least 2 are needed).`];
  }
  const target = `target: every ${unit} within ${formatPercent(1 - THROUGHPUT_SHARE_MIN)} of the first`;
  const throughput =
    `Verdict, throughput: first ${unit} ${formatCount(v.firstOpsPerSec)} ops/s; lowest ${unit} ` +
    `${v.lowest.minute} at ${formatCount(v.lowest.opsPerSec)} ops/s (${signedPercent(v.lowest.vsFirst - 1)}): ` +
    `${v.throughputOk ? 'OK' : 'SAG'} (${target}).`;
  const adjusted =
    v.adjustedLowest === undefined
      ? []
      : [
          `For the machine's speed (each ${unit}'s ops/s × its speed probe, against the first's; information, not the verdict): lowest ${unit} ${v.adjustedLowest.minute} at ${signedPercent(v.adjustedLowest.vsFirst - 1)}.`,
        ];
  const rule = `growth: over ${formatPercent(GROWTH_SHARE)} and ${formatMib(GROWTH_BYTES_MIN)} MiB`;
  const memory =
    v.memoryGrew === undefined
      ? 'Verdict, memory: not sampled.'
      : `Verdict, memory (first to last full ${unit}, MiB): ${growthText(v.memory)}: ${v.memoryGrew ? 'GREW' : 'flat'} (${rule}).`;
  const later =
    v.memoryLater === undefined
      ? []
      : [
          `Memory from the middle full ${unit} (${v.memoryLater.fromMinute}) to the last, MiB (information, not the verdict: a warm-up rises in the first half only, a leak in both): ${growthText(v.memoryLater.nodes)}: ${v.memoryLater.grew ? 'GREW' : 'flat'}.`,
        ];
  return [throughput, ...adjusted, memory, ...later];
}

function growthText(nodes: readonly NodeGrowth[]): string {
  return nodes
    .map(
      (m) =>
        `${m.node} heap floor ${delta(m.heapFloorBytes)}, RSS ${delta(m.rssMaxBytes)}, anon ${delta(m.anonMaxBytes)}` +
        (m.grew ? ' (GREW)' : ''),
    )
    .join('; ');
}

function seconds(s: number): string {
  return String(Math.round(s * 10) / 10);
}

function mib(bytes: number): string {
  return Number.isFinite(bytes) ? formatMib(bytes) : '–';
}

function delta([before, after]: readonly [number, number]): string {
  if (!Number.isFinite(before) || !Number.isFinite(after)) return '–';
  const d = Math.round((after - before) / (1024 * 1024));
  return `${formatMib(before)} → ${formatMib(after)} (${d >= 0 ? '+' : ''}${d})`;
}

function signedPercent(share: number): string {
  return `${share >= 0 ? '+' : ''}${formatPercent(share)}`;
}
