/**
 * Figure 5 (paper 6.1): buffered vs durable writes, p99.9 write latency per second. One fresh
 * cluster per durability mode runs the same write-only load (fresh keys, spread over the nodes):
 * `process` (writes reach the OS, not the disk: the paper's buffered writes), `fsync-one` (one of
 * the N replicas syncs, the paper's "durable write" refinement) and `fsync` (every replica syncs:
 * the paper's non-buffered writes). A mode the nodes do not know is reported as skipped.
 */

import { createRng } from '@tessera/core';
import type { Pool } from 'undici';
import { putKey } from '../http.js';
import type { Durability } from '../options.js';
import { type Driver, runPhase } from '../runner.js';
import { makeValues, putBody } from '../values.js';
import { closePools, type ExperimentIo, spreadPools, uniquePrefix, withCluster } from './kit.js';
import type { DurabilityResult, DurabilityRun, DurabilitySettings } from './model.js';

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
  return withCluster(settings, { durability: mode }, io, async (cluster, ctx) => {
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
