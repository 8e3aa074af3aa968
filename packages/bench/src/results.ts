/** The shape of a benchmark run's results, as written to bench-results/*.json. */

import type { KeyDistribution } from './keys.js';
import type { LateSummary } from './late-bursts.js';
import type { LoopDelayStats } from './loop-probe.js';
import type { MachineCpu } from './machine-cpu.js';
import type { Revision } from './revision.js';
import type { SoakResult } from './soak-minutes.js';
import type { WakeProbe } from './wake-probe.js';
import type { WindowStats } from './windows.js';
import type { WorkloadName } from './workloads.js';

/**
 * Where a phase's requests go: all to the first node, spread over all nodes (both server-driven:
 * a node that is not a replica forwards), or each to its key's first replica (client-driven).
 */
export type TargetMode = 'one' | 'spread' | 'replica';

export interface LatencySummary {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export interface OpStats {
  readonly ops: number;
  readonly opsPerSec: number;
  readonly latency: LatencySummary;
}

/** Reads (GETs, also those inside a read-modify-write) by how many siblings they returned. */
export interface SiblingCounts {
  readonly reads: number;
  /** Reads that saw 1, 2, 3 and 4 or more siblings. */
  readonly bySiblings: readonly [number, number, number, number];
}

export interface PhaseResult {
  /** A workload name, `load`, `bare GET` or `bare POST`. */
  readonly name: string;
  readonly system: 'tessera' | 'bare-fastify';
  /** Where the load went: one node, spread over all nodes, or the bare server. */
  readonly target: TargetMode | 'bare';
  /** Measured time, warmup excluded. */
  readonly durationMs: number;
  /** Successful operations in the measured time. */
  readonly ops: number;
  readonly opsPerSec: number;
  readonly latency: LatencySummary;
  readonly byOp: Readonly<Record<string, OpStats>>;
  /** The speed probe just before the phase and just after it (speed-probe.ts): ms, lower is faster. */
  readonly speedProbeMs?: { readonly before: number; readonly after: number };
  /** The whole machine over the measured time (machine-cpu.ts): cores idle, and taken by the host. */
  readonly machineCpu?: MachineCpu;
  /** Failed operations by error code (the API's code, HTTP_<status>, or the transport's code). */
  readonly errors: Readonly<Record<string, number>>;
  readonly siblings: SiblingCounts;
  /** Per process watched during the measured time, by node id (`bare` for the baseline, `bench` for this one). */
  readonly processes: Readonly<Record<string, ProcessStats>>;
  /** Latency per window of the measured time, when the phase asked for it. */
  readonly windows?: readonly WindowStats[];
  /** Event-loop delay during the measured time, by node id (from the nodes' /metrics). */
  readonly eventLoop?: Readonly<Record<string, LoopDelayStats>>;
  /** Operations slower than 10 ms, and the bursts they came in (late-bursts.ts). */
  readonly late?: LateSummary;
}

export interface ProcessStats {
  /** Highest resident set size seen (sampled every 250 ms). */
  readonly rssMaxBytes: number;
  /** User plus system CPU time used. */
  readonly cpuMs: number;
  /** cpuMs over wall-clock time: 1 is one core kept busy. */
  readonly cpuShare: number;
  /**
   * Share of wall-clock time the main thread (the event loop) was ready to run but waited for a
   * core (/proc/<pid>/schedstat): more cores wanted than the machine has. NaN when not read;
   * absent in results written before it was measured.
   */
  readonly waitShare?: number;
}

export interface RunSettings {
  readonly workloads: readonly WorkloadName[];
  readonly targets: readonly TargetMode[];
  readonly distribution: KeyDistribution;
  readonly keys: number;
  readonly valueBytes: number;
  readonly connections: number;
  /** Operations started per second in workload phases (open loop); absent for a closed loop. */
  readonly ratePerSec?: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly seed: number;
}

export interface ClusterInfo {
  /** True when the harness started the nodes itself. */
  readonly local: boolean;
  readonly urls: readonly string[];
  readonly nodeIds: readonly string[];
  readonly n: number;
  readonly r: number;
  readonly w: number;
  /** The nodes' durability mode, as GET /v1/status reports it. */
  readonly durability?: string;
  /** The config file the harness started its nodes with (`--node-config`), when it had one. */
  readonly config?: string;
  /** The nodes are `pnpm bench probe`'s replication-shape probe, not Tessera (their status says so). */
  readonly probe?: boolean;
}

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryBytes: number;
  readonly node: string;
  readonly platform: string;
  /** 1, 5 and 15 minute load averages when the run started and ended: other work on the machine skews figures. */
  readonly loadAverageStart: readonly number[];
  readonly loadAverageEnd: readonly number[];
  /** CPU of a small piece of work back to back and after a 1 ms sleep, at the start (wake-probe.ts). */
  readonly wakeProbe?: WakeProbe;
}

export interface Ratios {
  /** Workload W put throughput over bare fastify POST throughput, per target mode. */
  readonly putOverBarePost: Readonly<Partial<Record<TargetMode, number>>>;
  /** Workload C get throughput over bare fastify GET throughput, per target mode. */
  readonly getOverBareGet: Readonly<Partial<Record<TargetMode, number>>>;
}

export interface BenchReport {
  readonly startedAt: string;
  /** The code measured (for a local cluster; nodes given by --url may run anything). */
  readonly revision: Revision;
  readonly finishedAt: string;
  readonly machine: MachineInfo;
  readonly settings: RunSettings;
  readonly cluster: ClusterInfo;
  readonly phases: readonly PhaseResult[];
  readonly ratios: Ratios;
  /** Highest RSS per process over the whole run. */
  readonly rssMaxBytes: Readonly<Record<string, number>>;
  /** The most anonymous memory (RssAnon: without mapped file pages) per process over the run. */
  readonly anonMaxBytes?: Readonly<Record<string, number>>;
  /** With --soak: the measured workload minute by minute, and the verdict. */
  readonly soak?: SoakResult;
}

/** Cluster-over-bare throughput ratios from the W and C phases and the bare phases. */
/**
 * W over bare POST and C over bare GET, per target mode. The bare figure is the mean of the bare
 * phases of that method (`bare POST` before the cluster, `bare POST (after)` after it, when the
 * run had both): the machine's speed around the cluster's phases rather than at one end.
 */
export function computeRatios(phases: readonly PhaseResult[]): Ratios {
  const bare = phases.filter((p) => p.system === 'bare-fastify');
  const ratio = (workload: string, base: number | undefined): Partial<Record<TargetMode, number>> => {
    const out: Partial<Record<TargetMode, number>> = {};
    if (base === undefined || base <= 0) return out;
    for (const p of phases) {
      if (p.system === 'tessera' && p.name === workload && p.target !== 'bare')
        out[p.target] = p.opsPerSec / base;
    }
    return out;
  };
  const mean = (method: BareMethod) => bareMean(bare, method, (p) => p.opsPerSec);
  return { putOverBarePost: ratio('W', mean('POST')), getOverBareGet: ratio('C', mean('GET')) };
}

export type BareMethod = 'GET' | 'POST';

/** Appended to a bare phase's name when it runs after the cluster's (`bare GET (after)`). */
export const BARE_AFTER = ' (after)';

/**
 * The mean throughput of the bare phases of `method`, before the cluster's and after them, of
 * those `phases` holds (`pnpm bench` and `pnpm bench autocannon` alike); undefined when none.
 */
export function bareMean<P extends { readonly name: string }>(
  phases: readonly P[],
  method: BareMethod,
  perSec: (phase: P) => number,
): number | undefined {
  const names = [`bare ${method}`, `bare ${method}${BARE_AFTER}`];
  const runs = phases.filter((p) => names.includes(p.name));
  return runs.length === 0 ? undefined : runs.reduce((sum, p) => sum + perSec(p), 0) / runs.length;
}
