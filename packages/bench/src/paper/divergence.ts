/**
 * Section 6.3: how many versions reads see as the number of concurrent writers grows. For each k,
 * k writers run read-modify-write loops (GET, then PUT with the read's context) on the same small
 * set of keys, spread over the nodes so several nodes coordinate updates of a key at once; every
 * read records how many siblings it returned. Each k uses fresh keys.
 */

import { createRng } from '@tessera/core';
import type { Pool } from 'undici';
import { readModifyWrite } from '../drivers.js';
import type { PhaseResult } from '../results.js';
import { type Driver, runPhase } from '../runner.js';
import { makeValues } from '../values.js';
import { closePools, type ExperimentIo, spreadPools, uniquePrefix, withCluster } from './kit.js';
import {
  type DivergenceResult,
  type DivergenceRun,
  type DivergenceSettings,
  versionShares,
} from './model.js';

export async function runDivergence(
  settings: DivergenceSettings,
  io: ExperimentIo,
): Promise<DivergenceResult> {
  return withCluster(settings, {}, io, async (cluster, ctx) => {
    const rng = createRng(settings.seed);
    const values = makeValues(settings.valueBytes, 16, rng);
    const runs: DivergenceRun[] = [];
    for (const k of settings.writers) {
      if (io.signal.aborted) break;
      const pools = spreadPools(cluster, k);
      const prefix = uniquePrefix(`d${k}-`);
      try {
        const driver = rmwDriver(pools, prefix, settings.keys, values, rng);
        const phase = await runPhase(
          {
            head: { name: `6.3 ${k} writers`, system: 'tessera', target: 'spread' },
            workers: k,
            warmupMs: settings.warmupS * 1000,
            durationMs: settings.durationS * 1000,
            driver,
          },
          ctx,
        );
        io.log(divergenceLine(k, phase));
        runs.push({ writers: k, phase });
      } finally {
        await closePools(pools);
      }
    }
    return { settings, cluster: cluster.info, runs };
  });
}

function rmwDriver(
  pools: readonly Pool[],
  prefix: string,
  keys: number,
  values: readonly string[],
  rng: () => number,
): Driver {
  return {
    next(worker) {
      const pool = pools[worker % pools.length]!;
      const key = `${prefix}k${Math.floor(rng() * keys)}`;
      const value = values[Math.floor(rng() * values.length)]!;
      return { kind: 'rmw', run: () => readModifyWrite(pool, key, value) };
    },
  };
}

function divergenceLine(k: number, phase: PhaseResult): string {
  const shares = versionShares(phase)
    .map((s) => `${(s * 100).toFixed(2)}%`)
    .join(' / ');
  return `${k} writers: ${phase.siblings.reads} reads, 1 / 2 / 3 / 4+ versions: ${shares}`;
}
