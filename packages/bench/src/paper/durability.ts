/**
 * Figure 5 (paper 6.1): buffered vs durable writes, p99.9 write latency per second. One fresh
 * cluster per durability mode runs the same write-only load (fresh keys, spread over the nodes):
 * `process` (writes reach the OS, not the disk: the paper's buffered writes), `fsync-one` (one of
 * the N replicas syncs, the paper's "durable write" refinement) and `fsync` (every replica syncs:
 * the paper's non-buffered writes). A mode the nodes do not know is reported as skipped.
 */
import type { Pool } from 'undici';
import { putKey } from '../http.js';
import type { Durability } from '../options.js';
import type { ClusterInfo, PhaseResult } from '../results.js';
import { createRng } from '../rng.js';
import { type Driver, runPhase } from '../runner.js';
import { makeValues, putBody } from '../values.js';
import {
  type ClusterShape,
  closePools,
  type ExperimentIo,
  spreadPools,
  uniquePrefix,
  withCluster,
} from './kit.js';

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

export async function runDurability(
  settings: DurabilitySettings,
  io: ExperimentIo,
): Promise<DurabilityResult> {
  const runs: DurabilityRun[] = [];
  for (const mode of settings.modes) {
    if (io.signal.aborted) break;
    try {
      runs.push(await runMode(settings, mode, io));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!/exited while starting|not ready after/.test(reason)) throw err;
      io.log(`Durability ${mode}: skipped, the nodes did not start with it:\n${reason}`);
      runs.push({ mode, skipped: lastLines(reason) });
    }
  }
  return { settings, runs };
}

async function runMode(
  settings: DurabilitySettings,
  mode: Durability,
  io: ExperimentIo,
): Promise<DurabilityRun> {
  return withCluster(settings, mode, io, async (cluster, ctx) => {
    const rng = createRng(settings.seed);
    const values = makeValues(settings.valueBytes, 16, rng);
    const pools = spreadPools(cluster, settings.connections);
    try {
      const phase = await runPhase(
        {
          head: { name: `fig 5 ${mode}`, system: 'tessera', target: 'spread' },
          workers: settings.connections,
          warmupMs: settings.warmupS * 1000,
          durationMs: settings.durationS * 1000,
          windowMs: settings.windowMs,
          ...(settings.ratePerSec === undefined ? {} : { ratePerSec: settings.ratePerSec }),
          driver: freshWrites(pools, uniquePrefix(`f5-${mode}-`), values, rng),
        },
        ctx,
      );
      const l = phase.latency;
      io.log(
        `Durability ${mode}: ${Math.round(phase.opsPerSec)} writes/s, mean ${l.meanMs.toFixed(2)} ms, ` +
          `p99.9 ${l.p999Ms.toFixed(2)} ms`,
      );
      return { mode, cluster: cluster.info, phase };
    } finally {
      await closePools(pools);
    }
  });
}

function freshWrites(
  pools: readonly Pool[],
  prefix: string,
  values: readonly string[],
  rng: () => number,
): Driver {
  let next = 0;
  return {
    next(worker) {
      const pool = pools[worker % pools.length]!;
      const key = `${prefix}${next++}`;
      const body = putBody(values[Math.floor(rng() * values.length)]!);
      return { kind: 'write', run: () => putKey(pool, key, body) };
    },
  };
}

/** The end of a start failure (the node's own complaint), on one line. */
function lastLines(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.slice(-3).join(' | ').slice(-400);
}
