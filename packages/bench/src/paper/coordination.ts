/**
 * Table 2 (paper 6.4): client-driven vs server-driven coordination, average and p99.9 latency of
 * reads and writes. Server-driven: each request goes to a random node (a load balancer); a node
 * that is not one of the key's N replicas forwards a write to one that is, and coordinates a read
 * by asking the replicas over the network. Client-driven: each request goes to its key's first
 * replica, from the ring the client reads in GET /v1/status. With more nodes than N, a random node
 * is not a replica of a key with probability 1 - N / nodes. Each routing runs in its own phase,
 * then both in one phase (each request picks one), so they also meet the same machine conditions.
 */

import { createRng, type Rng } from '@tessera/core';
import type { Pool } from 'undici';
import { createPool, getKey, putKey } from '../http.js';
import type { PhaseResult } from '../results.js';
import { createKeyRouter } from '../routing.js';
import { type Driver, runPhase } from '../runner.js';
import { makeValues, putBody } from '../values.js';
import { closePools, type ExperimentIo, uniquePrefix, withCluster } from './kit.js';
import {
  type CoordinationMode,
  type CoordinationResult,
  type CoordinationRow,
  type CoordinationSettings,
  coordinationRows,
  type Routing,
} from './model.js';

const LOAD_PHASE_MAX_MS = 5 * 60_000;

export async function runCoordination(
  settings: CoordinationSettings,
  io: ExperimentIo,
): Promise<CoordinationResult> {
  return withCluster(settings, {}, io, async (cluster, ctx) => {
    const rng = createRng(settings.seed);
    const values = makeValues(settings.valueBytes, 16, rng);
    const prefix = uniquePrefix('t2-');
    // A load balancer: a request may go to whichever node, so each pool may take all connections.
    const nodes = cluster.nodes.map((node) => createPool(node.url, settings.connections));
    const router = await createKeyRouter(cluster.nodes[0]!.url, settings.connections);
    const route = (routing: Routing, key: string): Pool =>
      routing === 'client' ? router.poolFor(key) : nodes[Math.floor(rng() * nodes.length)]!;
    const phases: (PhaseResult & { mode: CoordinationMode })[] = [];
    try {
      io.log(`Loading ${settings.keys} keys…`);
      await runPhase(
        {
          head: { name: 'load', system: 'tessera', target: 'replica' },
          workers: settings.connections,
          warmupMs: 0,
          durationMs: LOAD_PHASE_MAX_MS,
          untilDone: true,
          driver: loadKeys(prefix, settings.keys, values, router.poolFor),
        },
        ctx,
      );
      const fresh = { next: 0 };
      for (const mode of ['server', 'client', 'interleaved'] as const) {
        if (io.signal.aborted) break;
        const driver = readWriteDriver(settings, { prefix, values, rng, fresh, mode, route });
        const target = mode === 'client' ? 'replica' : 'spread';
        const result = await runPhase(
          {
            head: { name: `table 2 ${mode}`, system: 'tessera', target },
            workers: settings.connections,
            warmupMs: settings.warmupS * 1000,
            durationMs: settings.durationS * 1000,
            driver,
            ...(settings.ratePerSec === undefined ? {} : { ratePerSec: settings.ratePerSec }),
          },
          ctx,
        );
        const phase = { ...result, mode };
        for (const row of coordinationRows({ settings, cluster: cluster.info, phases: [phase] })) {
          io.log(coordinationLine(row));
        }
        phases.push(phase);
      }
    } finally {
      await closePools([...nodes, ...router.pools]);
    }
    return { settings, cluster: cluster.info, phases };
  });
}

function loadKeys(
  prefix: string,
  count: number,
  values: readonly string[],
  route: (key: string) => Pool,
): Driver {
  let next = 0;
  return {
    next() {
      if (next >= count) return undefined;
      const key = `${prefix}k${next}`;
      const body = putBody(values[next++ % values.length]!);
      return { kind: 'insert', run: () => putKey(route(key), key, body) };
    },
  };
}

interface MixPlan {
  readonly prefix: string;
  readonly values: readonly string[];
  readonly rng: Rng;
  readonly fresh: { next: number };
  readonly mode: CoordinationMode;
  readonly route: (routing: Routing, key: string) => Pool;
}

/**
 * Reads of loaded keys (uniform) and writes of fresh keys, routed as the mode says; interleaved,
 * each operation picks a routing at random and names it in its kind.
 */
function readWriteDriver(settings: CoordinationSettings, plan: MixPlan): Driver {
  const { rng } = plan;
  return {
    next() {
      const routing = plan.mode === 'interleaved' ? (rng() < 0.5 ? 'server' : 'client') : plan.mode;
      const suffix = plan.mode === 'interleaved' ? ` ${routing}` : '';
      if (rng() < settings.readShare) {
        const key = `${plan.prefix}k${Math.floor(rng() * settings.keys)}`;
        const pool = plan.route(routing, key);
        return { kind: `read${suffix}`, run: () => getKey(pool, key) };
      }
      const key = `${plan.prefix}w${plan.fresh.next++}`;
      const pool = plan.route(routing, key);
      const body = putBody(plan.values[Math.floor(rng() * plan.values.length)]!);
      return { kind: `write${suffix}`, run: () => putKey(pool, key, body) };
    },
  };
}

function coordinationLine(row: CoordinationRow): string {
  const ms = (v: number | undefined): string => (v === undefined ? '–' : v.toFixed(2));
  return (
    `${row.routing}-driven (${row.mode === 'interleaved' ? 'interleaved' : 'own phase'}): ` +
    `${Math.round(row.opsPerSec)} ops/s; read mean ${ms(row.read?.meanMs)} ms, p99.9 ${ms(row.read?.p999Ms)} ms; ` +
    `write mean ${ms(row.write?.meanMs)} ms, p99.9 ${ms(row.write?.p999Ms)} ms`
  );
}
