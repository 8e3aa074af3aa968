/**
 * `pnpm bench --soak`, the arithmetic: the measured workload cut into windows ("minutes", 60 s
 * unless --window-s says otherwise): throughput and latency per window (from the runner's
 * LatencyWindows), each node's CPU, heap, RSS and event-loop delay per window (from periodic
 * samples), and the verdict: does throughput stay within 10% of the first window, does memory grow.
 */
import { median } from './ab-summary.js';
import { since } from './counters.js';
import { type LoopDelayStats, loopDelayStats } from './loop-probe.js';
import { type CpuTicks, machineCpuBetween } from './machine-cpu.js';
import type { Buckets } from './prom-text.js';
import { type LaterGrowth, laterGrowth, memoryGrowth, type NodeGrowth } from './soak-memory.js';
import type { WindowStats } from './windows.js';

/** The target: every full window's throughput at least this share of the first window's. */
export const THROUGHPUT_SHARE_MIN = 0.9;

/** One node at one sampling instant; a field is absent when that source did not answer. */
export interface NodeSample {
  readonly rssBytes?: number;
  readonly anonBytes?: number;
  readonly cpuMs?: number;
  /** Time the main thread waited for a core so far (proc-sampler.ts `parseRunQueueWaitMs`). */
  readonly waitMs?: number;
  readonly heapUsedBytes?: number;
  readonly loop?: Buckets;
}

/** Samples of every node at offset index × sampleS from the start of the measured time. */
export interface SampleRound {
  readonly index: number;
  readonly nodes: Readonly<Record<string, NodeSample>>;
  /** The machine's speed probe (speed-probe.ts), when the round took one: ms, lower is faster. */
  readonly speedProbeMs?: number;
  /** The whole machine's CPU ticks so far (machine-cpu.ts), when /proc/stat was read. */
  readonly cpuTicks?: CpuTicks;
}

export interface SoakMinute {
  /** 1 for the first window. */
  readonly minute: number;
  readonly startS: number;
  readonly lengthS: number;
  readonly ops: number;
  readonly opsPerSec: number;
  /** opsPerSec over the first window's. */
  readonly vsFirst: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export interface SoakNodeMinute {
  readonly minute: number;
  readonly node: string;
  /** CPU used over the window, in cores (1 = one core busy). */
  readonly cpuCores: number;
  /** Share of the window the node's main thread waited for a core; NaN when unknown. */
  readonly waitShare: number;
  /** Lowest and highest heap used seen in the window: the lowest is the floor GC gets back to. */
  readonly heapUsedMinBytes: number;
  readonly heapUsedMaxBytes: number;
  readonly rssMaxBytes: number;
  readonly anonMaxBytes: number;
  readonly loop?: LoopDelayStats;
}

/**
 * The machine in one window: how fast it ran (the speed probe taken in the window) and what the
 * nodes' CPU per operation was. On a shared VM both move with the host: the same work at the same
 * load costs more CPU per operation in a slow spell. A sag of Tessera's own (more work per
 * operation) shows as CPU per operation rising while the probe stays.
 */
export interface SoakMachineMinute {
  readonly minute: number;
  readonly speedProbeMs?: number;
  /** Every node's CPU over the window, summed, per successful operation, in µs. */
  readonly nodeCpuUsPerOp: number;
  /** Cores the host took from this VM over the window (steal), when both ends read /proc/stat. */
  readonly stealCores?: number;
}

export interface SoakVerdict {
  /** Full windows compared; below 2 there is no verdict. */
  readonly fullMinutes: number;
  readonly firstOpsPerSec: number;
  /** The full window with the lowest throughput after the first. */
  readonly lowest?: { readonly minute: number; readonly opsPerSec: number; readonly vsFirst: number };
  /** Every full window within THROUGHPUT_SHARE_MIN of the first; undefined without a verdict. */
  readonly throughputOk?: boolean;
  /**
   * Throughput for the machine's speed: each full window's ops/s times its speed probe, against the
   * first's (a window of a machine 20% slower by the probe is expected 20% lower); the lowest.
   * Information beside the verdict, which stays the raw throughput's; absent without probes.
   */
  readonly adjustedLowest?: { readonly minute: number; readonly vsFirst: number };
  readonly memory: readonly NodeGrowth[];
  readonly memoryGrew?: boolean;
  /** The same from the middle full window to the last, for information (soak-memory.ts). */
  readonly memoryLater?: LaterGrowth;
}

export interface SoakResult {
  readonly windowS: number;
  readonly sampleS: number;
  readonly minutes: readonly SoakMinute[];
  readonly nodes: readonly SoakNodeMinute[];
  readonly machine: readonly SoakMachineMinute[];
  readonly verdict: SoakVerdict;
}

/** Throughput and latency per window; windows with no successful operation are kept, as zeros. */
export function soakMinutes(
  windows: readonly WindowStats[],
  windowS: number,
  durationS: number,
): SoakMinute[] {
  const count = Math.max(windows.length, Math.ceil(durationS / windowS - 1e-9));
  const out: SoakMinute[] = [];
  let firstOpsPerSec = Number.NaN;
  for (let i = 0; i < count; i++) {
    const w = windows[i];
    const startS = i * windowS;
    const lengthS = Math.max(0, Math.min(windowS, durationS - startS));
    const ops = w?.count ?? 0;
    const opsPerSec = lengthS > 0 ? ops / lengthS : 0;
    if (i === 0) firstOpsPerSec = opsPerSec;
    out.push({
      minute: i + 1,
      startS,
      lengthS,
      ops,
      opsPerSec,
      vsFirst: firstOpsPerSec > 0 ? opsPerSec / firstOpsPerSec : Number.NaN,
      p50Ms: w?.p50Ms ?? Number.NaN,
      p99Ms: w?.p99Ms ?? Number.NaN,
      p999Ms: w?.p999Ms ?? Number.NaN,
      maxMs: w?.maxMs ?? Number.NaN,
    });
  }
  return out;
}

/**
 * Per window and node from sample rounds taken every sampleS (samplesPerWindow rounds per window):
 * window k runs from round k × samplesPerWindow to the next window's first round (or the last round
 * taken, when the run stopped early); CPU and event-loop delay are differences across it.
 */
export function nodeMinutes(
  rounds: readonly SampleRound[],
  samplesPerWindow: number,
  sampleS: number,
): SoakNodeMinute[] {
  const { byIndex, lastIndex, edges } = roundTable(rounds, samplesPerWindow);
  const names = [...new Set(rounds.flatMap((r) => Object.keys(r.nodes)))].sort();
  const out: SoakNodeMinute[] = [];
  for (let k = 0; k * samplesPerWindow < lastIndex; k++) {
    const { from, to } = edges(k);
    const inWindow: SampleRound[] = [];
    for (let i = from; i <= to; i++) {
      const round = byIndex.get(i);
      if (round !== undefined) inWindow.push(round);
    }
    for (const node of names) {
      const samples = inWindow.flatMap((r) => (r.nodes[node] === undefined ? [] : [r.nodes[node]]));
      const first = byIndex.get(from)?.nodes[node];
      const last = byIndex.get(to)?.nodes[node];
      const spanMs = (to - from) * sampleS * 1000;
      const cpuMs = since(first?.cpuMs, last?.cpuMs);
      const waitMs = since(first?.waitMs, last?.waitMs);
      const loop =
        first?.loop === undefined || last?.loop === undefined
          ? undefined
          : loopDelayStats(first.loop, last.loop);
      out.push({
        minute: k + 1,
        node,
        cpuCores: spanMs > 0 ? cpuMs / spanMs : Number.NaN,
        waitShare: spanMs > 0 ? waitMs / spanMs : Number.NaN,
        heapUsedMinBytes: extreme(samples, (s) => s.heapUsedBytes, Math.min),
        heapUsedMaxBytes: extreme(samples, (s) => s.heapUsedBytes, Math.max),
        rssMaxBytes: extreme(samples, (s) => s.rssBytes, Math.max),
        anonMaxBytes: extreme(samples, (s) => s.anonBytes, Math.max),
        ...(loop === undefined ? {} : { loop }),
      });
    }
  }
  return out;
}

/**
 * Per window: the median of the speed probes its rounds took (one probe is a moment; the machine
 * changes within a window), the nodes' CPU per operation (their summed CPU cores over the
 * window's ops/s), and the cores the host took across the window (from its first round to the
 * next window's first, or the last round taken).
 */
export function machineMinutes(
  rounds: readonly SampleRound[],
  samplesPerWindow: number,
  minutes: readonly SoakMinute[],
  nodes: readonly SoakNodeMinute[],
): SoakMachineMinute[] {
  const { byIndex, edges } = roundTable(rounds, samplesPerWindow);
  return minutes.map((m) => {
    const { from, to } = edges(m.minute - 1);
    const start = byIndex.get(from)?.cpuTicks;
    const end = byIndex.get(to)?.cpuTicks;
    const stealCores = start && end ? machineCpuBetween(start, end)?.stealCores : undefined;
    const probes = rounds.flatMap((r) =>
      r.index >= from && r.index < from + samplesPerWindow && r.speedProbeMs !== undefined
        ? [r.speedProbeMs]
        : [],
    );
    const probe = probes.length === 0 ? undefined : median(probes);
    const cores = nodes.filter((n) => n.minute === m.minute).reduce((sum, n) => sum + n.cpuCores, 0);
    const nodeCpuUsPerOp = m.opsPerSec > 0 ? (cores * 1e6) / m.opsPerSec : Number.NaN;
    return {
      minute: m.minute,
      ...(probe === undefined ? {} : { speedProbeMs: probe }),
      nodeCpuUsPerOp,
      ...(stealCores === undefined ? {} : { stealCores }),
    };
  });
}

/**
 * Rounds by index, the last index taken, and window k's edges: its first round and the next
 * window's first (or the last round taken, when the run stopped early).
 */
function roundTable(rounds: readonly SampleRound[], samplesPerWindow: number) {
  const byIndex = new Map(rounds.map((r) => [r.index, r]));
  const lastIndex = Math.max(-1, ...rounds.map((r) => r.index));
  const edges = (k: number) => ({
    from: k * samplesPerWindow,
    to: Math.min((k + 1) * samplesPerWindow, lastIndex),
  });
  return { byIndex, lastIndex, edges };
}

function extreme(
  samples: readonly NodeSample[],
  field: (s: NodeSample) => number | undefined,
  pick: (...values: number[]) => number,
): number {
  const values = samples.map(field).filter((v): v is number => v !== undefined);
  return values.length === 0 ? Number.NaN : pick(...values);
}

export function soakVerdict(
  minutes: readonly SoakMinute[],
  nodes: readonly SoakNodeMinute[],
  windowS: number,
  machine: readonly SoakMachineMinute[] = [],
): SoakVerdict {
  const full = minutes.filter((m) => m.lengthS >= windowS - 1e-9);
  const firstOpsPerSec = full[0]?.opsPerSec ?? Number.NaN;
  const memory = memoryGrowth(nodes, new Set(full.map((m) => m.minute)));
  if (full.length < 2 || !(firstOpsPerSec > 0)) return { fullMinutes: full.length, firstOpsPerSec, memory };
  const rest = full.slice(1);
  const worst = rest.reduce((a, b) => (b.opsPerSec < a.opsPerSec ? b : a));
  const vsFirst = worst.opsPerSec / firstOpsPerSec;
  const adjustedLowest = adjustedLow(full, machine);
  const memoryLater = laterGrowth(nodes, full);
  return {
    fullMinutes: full.length,
    firstOpsPerSec,
    lowest: { minute: worst.minute, opsPerSec: worst.opsPerSec, vsFirst },
    throughputOk: vsFirst >= THROUGHPUT_SHARE_MIN,
    ...(adjustedLowest === undefined ? {} : { adjustedLowest }),
    memory,
    ...(memory.length === 0 ? {} : { memoryGrew: memory.some((m) => m.grew) }),
    ...(memoryLater === undefined ? {} : { memoryLater }),
  };
}

/** The lowest full window's ops/s × speed probe against the first's; undefined unless every full window has a probe. */
function adjustedLow(
  full: readonly SoakMinute[],
  machine: readonly SoakMachineMinute[],
): { minute: number; vsFirst: number } | undefined {
  const probeOf = new Map(machine.map((m) => [m.minute, m.speedProbeMs]));
  const adjusted = full.map((m) => ({
    minute: m.minute,
    work: m.opsPerSec * (probeOf.get(m.minute) ?? Number.NaN),
  }));
  if (adjusted.some((a) => !(a.work > 0))) return undefined;
  const first = adjusted[0]!.work;
  const worst = adjusted.slice(1).reduce((a, b) => (b.work < a.work ? b : a));
  return { minute: worst.minute, vsFirst: worst.work / first };
}
