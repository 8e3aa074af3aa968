/**
 * The data of the paper's cluster experiments: their settings and defaults, what they measured
 * (as written to bench-results/paper-*.json), and the figures drawn from it. No I/O here, so the
 * report, the charts and their tests load without the cluster code.
 */
import type { Durability } from '../options.js';
import type { ClusterInfo, LatencySummary, PhaseResult } from '../results.js';

export interface ClusterShape {
  readonly nodes: number;
  readonly n: number;
  readonly r: number;
  readonly w: number;
}

// Table 2 (paper 6.4).

export type Routing = 'server' | 'client';
/** A phase with one routing, or both at once: each request picks one at random. */
export type CoordinationMode = Routing | 'interleaved';

export interface CoordinationSettings extends ClusterShape {
  readonly connections: number;
  /** Keys written before the measured phases; reads pick among them uniformly. */
  readonly keys: number;
  /** Share of operations that are reads; the rest write fresh keys. */
  readonly readShare: number;
  readonly valueBytes: number;
  readonly durationS: number;
  readonly warmupS: number;
  /** Operations started per second (open loop), or undefined for a closed loop of `connections`. */
  readonly ratePerSec: number | undefined;
  readonly seed: number;
}

export interface CoordinationResult {
  readonly settings: CoordinationSettings;
  readonly cluster: ClusterInfo;
  /**
   * In the order run. Operation kinds are `read` and `write`; in the interleaved phase
   * `read server`, `write server`, `read client` and `write client`.
   */
  readonly phases: readonly (PhaseResult & { readonly mode: CoordinationMode })[];
}

/** One line of Table 2: a routing, measured in its own phase or interleaved with the other. */
export interface CoordinationRow {
  readonly routing: Routing;
  readonly mode: CoordinationMode;
  readonly opsPerSec: number;
  readonly read: LatencySummary | undefined;
  readonly write: LatencySummary | undefined;
  readonly errors: Readonly<Record<string, number>>;
  /**
   * CPU of all nodes per successful operation, in µs: the steadiest figure on a shared machine.
   * Undefined for the interleaved phase, whose CPU the two routings share.
   */
  readonly nodeCpuUsPerOp: number | undefined;
}

export function coordinationRows(result: CoordinationResult): CoordinationRow[] {
  return result.phases.flatMap((p): CoordinationRow[] => {
    if (p.mode !== 'interleaved') {
      const row = { routing: p.mode, mode: p.mode, opsPerSec: p.opsPerSec, errors: p.errors };
      const cpu = { nodeCpuUsPerOp: nodeCpuUsPerOp(p) };
      return [{ ...row, ...cpu, read: p.byOp.read?.latency, write: p.byOp.write?.latency }];
    }
    return (['server', 'client'] as const).map((routing) => {
      const read = p.byOp[`read ${routing}`];
      const write = p.byOp[`write ${routing}`];
      const opsPerSec = (read?.opsPerSec ?? 0) + (write?.opsPerSec ?? 0);
      return {
        routing,
        mode: p.mode,
        opsPerSec,
        read: read?.latency,
        write: write?.latency,
        errors: p.errors,
        nodeCpuUsPerOp: undefined,
      };
    });
  });
}

/** CPU of every watched process but the harness (`bench`), per successful operation. */
export function nodeCpuUsPerOp(p: PhaseResult): number | undefined {
  const nodes = Object.entries(p.processes).filter(([name]) => name !== 'bench');
  const cpuMs = nodes.reduce((sum, [, s]) => sum + s.cpuMs, 0);
  return nodes.length === 0 || p.ops === 0 || !Number.isFinite(cpuMs) ? undefined : (cpuMs * 1000) / p.ops;
}

export const COORDINATION_DEFAULTS: CoordinationSettings = {
  nodes: 5,
  n: 3,
  r: 2,
  w: 2,
  // Open loop at a rate both modes sustain, so they are compared at the same offered load.
  connections: 32,
  keys: 2_000,
  readShare: 0.5,
  valueBytes: 150,
  durationS: 15,
  warmupS: 2,
  ratePerSec: 100,
  seed: 1,
};

// Section 6.3.

export interface DivergenceSettings extends ClusterShape {
  /** Concurrent writers to try, one run each. */
  readonly writers: readonly number[];
  /** Keys the writers share. */
  readonly keys: number;
  readonly valueBytes: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly seed: number;
}

export interface DivergenceRun {
  readonly writers: number;
  readonly phase: PhaseResult;
}

export interface DivergenceResult {
  readonly settings: DivergenceSettings;
  readonly cluster: ClusterInfo;
  readonly runs: readonly DivergenceRun[];
}

export const DIVERGENCE_DEFAULTS: DivergenceSettings = {
  nodes: 3,
  n: 3,
  r: 2,
  w: 2,
  writers: [1, 2, 4, 8, 16],
  keys: 8,
  valueBytes: 150,
  durationS: 5,
  warmupS: 1,
  seed: 1,
};

/** Shares of reads that saw 1, 2, 3 and 4 or more versions. */
export function versionShares(phase: PhaseResult): readonly number[] {
  const { reads, bySiblings } = phase.siblings;
  return bySiblings.map((c) => (reads === 0 ? Number.NaN : c / reads));
}

// Figure 5 (paper 6.1).

export interface DurabilitySettings extends ClusterShape {
  readonly modes: readonly Durability[];
  readonly connections: number;
  readonly valueBytes: number;
  readonly durationS: number;
  readonly warmupS: number;
  /** Operations started per second (open loop), or undefined for a closed loop of `connections`. */
  readonly ratePerSec: number | undefined;
  /** Width of a latency window. */
  readonly windowMs: number;
  readonly seed: number;
}

export type DurabilityRun =
  | { readonly mode: Durability; readonly cluster: ClusterInfo; readonly phase: PhaseResult }
  | { readonly mode: Durability; readonly skipped: string };

export interface DurabilityResult {
  readonly settings: DurabilitySettings;
  readonly runs: readonly DurabilityRun[];
}

export const DURABILITY_DEFAULTS: DurabilitySettings = {
  nodes: 3,
  n: 3,
  r: 2,
  w: 2,
  modes: ['process', 'fsync-one', 'fsync'],
  connections: 32,
  valueBytes: 150,
  durationS: 30,
  warmupS: 2,
  // Open loop: every mode gets the same offered load, as the paper's modes got the same traffic.
  ratePerSec: 100,
  windowMs: 1_000,
  seed: 1,
};
