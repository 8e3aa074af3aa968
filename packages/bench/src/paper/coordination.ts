/**
 * Table 2 (paper 6.4): client-driven vs server-driven coordination, average and p99.9 latency of
 * reads and writes. Server-driven: each worker sends to one node, the workers spread evenly over
 * the nodes (a load balancer); a node that is not one of the key's N replicas forwards a write to
 * one that is, and coordinates a read by asking the replicas. Client-driven: each request goes to
 * its key's first replica, from the ring the client reads in GET /v1/status. With more nodes than
 * N, a random node is not a replica of a key with probability 1 - N / nodes.
 */
import type { Pool } from 'undici';
import { getKey, putKey } from '../http.js';
import type { ClusterInfo, PhaseResult } from '../results.js';
import { createRng, type Rng } from '../rng.js';
import { createKeyRouter } from '../routing.js';
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

export type Routing = 'server' | 'client';

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
  /** One measured phase per routing, in the order run. */
  readonly phases: readonly (PhaseResult & { readonly routing: Routing })[];
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

const LOAD_PHASE_MAX_MS = 5 * 60_000;

export async function runCoordination(
  settings: CoordinationSettings,
  io: ExperimentIo,
): Promise<CoordinationResult> {
  return withCluster(settings, undefined, io, async (cluster, ctx) => {
    const rng = createRng(settings.seed);
    const values = makeValues(settings.valueBytes, 16, rng);
    const prefix = uniquePrefix('t2-');
    const spread = spreadPools(cluster, settings.connections);
    const router = await createKeyRouter(cluster.nodes[0]!.url, settings.connections);
    const byRouting: Record<Routing, (key: string, worker: number) => Pool> = {
      server: (_key, worker) => spread[worker % spread.length]!,
      client: (key) => router.poolFor(key),
    };
    const phases: (PhaseResult & { routing: Routing })[] = [];
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
      for (const routing of ['server', 'client'] as const) {
        if (io.signal.aborted) break;
        const driver = readWriteDriver(settings, prefix, values, rng, fresh, byRouting[routing]);
        const target = routing === 'server' ? 'spread' : 'replica';
        const result = await runPhase(
          {
            head: { name: `table 2 ${routing}-driven`, system: 'tessera', target },
            workers: settings.connections,
            warmupMs: settings.warmupS * 1000,
            durationMs: settings.durationS * 1000,
            driver,
            ...(settings.ratePerSec === undefined ? {} : { ratePerSec: settings.ratePerSec }),
          },
          ctx,
        );
        io.log(coordinationLine(routing, result));
        phases.push({ ...result, routing });
      }
    } finally {
      await closePools([...spread, ...router.pools]);
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

/** Reads of loaded keys (uniform) and writes of fresh keys, each sent where `route` says. */
function readWriteDriver(
  settings: CoordinationSettings,
  prefix: string,
  values: readonly string[],
  rng: Rng,
  fresh: { next: number },
  route: (key: string, worker: number) => Pool,
): Driver {
  return {
    next(worker) {
      if (rng() < settings.readShare) {
        const key = `${prefix}k${Math.floor(rng() * settings.keys)}`;
        const pool = route(key, worker);
        return { kind: 'read', run: () => getKey(pool, key) };
      }
      const key = `${prefix}w${fresh.next++}`;
      const pool = route(key, worker);
      const body = putBody(values[Math.floor(rng() * values.length)]!);
      return { kind: 'write', run: () => putKey(pool, key, body) };
    },
  };
}

function coordinationLine(routing: Routing, p: PhaseResult): string {
  const ms = (v: number | undefined): string => (v === undefined ? '–' : v.toFixed(2));
  const read = p.byOp.read?.latency;
  const write = p.byOp.write?.latency;
  return (
    `${routing}-driven: ${Math.round(p.opsPerSec)} ops/s; read mean ${ms(read?.meanMs)} ms, p99.9 ${ms(read?.p999Ms)} ms; ` +
    `write mean ${ms(write?.meanMs)} ms, p99.9 ${ms(write?.p999Ms)} ms`
  );
}
