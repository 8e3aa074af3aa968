/**
 * Table 2 (paper 6.4): client-driven vs server-driven coordination, average and p99.9 latency of
 * reads and writes. Server-driven: each request goes to a random node (a load balancer); a node
 * that is not one of the key's N replicas forwards a write to one that is, and coordinates a read
 * by asking the replicas over the network. Client-driven: each request goes to its key's first
 * replica, from the ring the client reads in GET /v1/status. With more nodes than N, a random node
 * is not a replica of a key with probability 1 - N / nodes. Each routing runs in its own phase,
 * then both in one phase (each request picks one), so they also meet the same machine conditions.
 */
import type { Pool } from 'undici';
import { createPool, getKey, putKey } from '../http.js';
import type { ClusterInfo, LatencySummary, PhaseResult } from '../results.js';
import { createRng, type Rng } from '../rng.js';
import { createKeyRouter } from '../routing.js';
import { type Driver, runPhase } from '../runner.js';
import { makeValues, putBody } from '../values.js';
import { type ClusterShape, closePools, type ExperimentIo, uniquePrefix, withCluster } from './kit.js';

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
}

export function coordinationRows(result: CoordinationResult): CoordinationRow[] {
  return result.phases.flatMap((p): CoordinationRow[] => {
    if (p.mode !== 'interleaved') {
      const row = { routing: p.mode, mode: p.mode, opsPerSec: p.opsPerSec, errors: p.errors };
      return [{ ...row, read: p.byOp.read?.latency, write: p.byOp.write?.latency }];
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
      };
    });
  });
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
    // A load balancer: any request to any node, so every node's pool may take all connections.
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
