/**
 * `pnpm bench ab --against DIR`: this checkout's nodes against another built checkout's, on this
 * machine in the same minutes. On a VM whose speed changes by half within a minute, two runs of
 * `pnpm bench` an hour (or a minute) apart compare poorly. Here both clusters run side by side,
 * each idle while the other is measured; short windows of each workload alternate between them,
 * in the order this, other, other, this, …, the other cluster started and loaded first; and the report gives, besides each side's medians, the
 * median of the paired ratios this / other of CPU per operation and throughput, from which the
 * machine's drift mostly cancels out (ab-summary.ts).
 */
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRng } from '@tessera/core';
import type { Pool } from 'undici';
import { type AbSample, type AbWorkloadSummary, type PairedFigure, summarizeAb } from './ab-summary.js';
import { type Cluster, startLocalCluster } from './cluster.js';
import {
  type KeyCounter,
  LOAD_PHASE_MAX_MS,
  type LoadTarget,
  loadDriver,
  workloadDriver,
} from './drivers.js';
import { formatCount, renderTable } from './format.js';
import { createPool } from './http.js';
import { createKeyChooser } from './keys.js';
import { UsageError, whole } from './options.js';
import type { SubcommandIo } from './paper/main.js';
import { ProcessSampler } from './proc-sampler.js';
import { checkQuietMachine } from './quiet-machine.js';
import type { PhaseResult } from './results.js';
import { type Driver, runPhase } from './runner.js';
import { DISTINCT_VALUES, makeValues } from './values.js';
import { isWorkloadName, WORKLOADS, type WorkloadName } from './workloads.js';

export const AB_USAGE = `Usage: pnpm bench ab --against DIR [options]

Compares this checkout's nodes with those of another checkout DIR (built: pnpm install && pnpm
build there), on this machine at the same time: two local clusters of three nodes (N=3 R=2 W=2),
load to n0, both loaded with --keys keys, then --rounds rounds in which each workload runs for
--window-s seconds on each cluster in turn (this, other, then other, this, …); all of it --pairs
times, each time with two new clusters, started in the other order. Prints each side's medians and
the median of the paired ratios this / other (CPU per operation of n0 and of the two other nodes,
and throughput) over all rounds, and per pair of clusters: a cluster keeps a speed of its own for
its whole life (up to about 10% on a shared VM), so only pairs are independent of each other.
Nothing is written to disk.

  --against DIR     the other checkout (required)
  --workloads LIST  which workloads, of A, B, C, W (default W,C)
  --pairs P         pairs of clusters, one after the other (default 2)
  --rounds R        rounds per pair (default 4)
  --window-s S      measured seconds per window (default 4)
  --warmup-s S      unmeasured seconds before each window (default 1)
  --keys K          keys loaded into each cluster (default 10000)
  --connections C   connections, one request in flight each (default 50)
  --force           run even when other work keeps the machine busy
  -h, --help        this text
`;

export interface AbOptions {
  readonly help: boolean;
  readonly against: string;
  readonly workloads: readonly WorkloadName[];
  readonly pairs: number;
  readonly rounds: number;
  readonly windowS: number;
  readonly warmupS: number;
  readonly keys: number;
  readonly connections: number;
  readonly force: boolean;
}

const VALUE_BYTES = 150;

export function parseAbArgs(argv: readonly string[]): AbOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      against: { type: 'string', default: '' },
      workloads: { type: 'string', default: 'W,C' },
      pairs: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '4' },
      'window-s': { type: 'string', default: '4' },
      'warmup-s': { type: 'string', default: '1' },
      keys: { type: 'string', default: '10000' },
      connections: { type: 'string', default: '50' },
      force: { type: 'boolean', default: false },
    },
  });
  const workloads = values.workloads.split(',').map((w) => w.trim().toUpperCase());
  const unknown = workloads.find((w) => !isWorkloadName(w));
  if (unknown !== undefined) throw new UsageError(`--workloads: "${unknown}" is not one of A, B, C, W.`);
  if (!values.help && values.against === '') {
    throw new UsageError(
      '--against DIR is required: the other checkout, built (pnpm install && pnpm build).',
    );
  }
  return {
    help: values.help,
    against: values.against,
    workloads: workloads as WorkloadName[],
    pairs: whole('--pairs', values.pairs, 1, 10),
    rounds: whole('--rounds', values.rounds, 1, 100),
    windowS: whole('--window-s', values['window-s'], 1, 600),
    warmupS: whole('--warmup-s', values['warmup-s'], 0, 60),
    keys: whole('--keys', values.keys, 1, 10_000_000),
    connections: whole('--connections', values.connections, 1, 1_000),
    force: values.force,
  };
}

/**
 * The other checkout's node CLI: its bundled `tessera` (dist/bin), or the compiled one of a checkout
 * from before the bundle (dist/cli); a UsageError saying how to build it when it has neither.
 */
export async function otherCli(dir: string): Promise<string> {
  const server = join(resolve(dir), 'packages/server/dist');
  for (const cli of [join(server, 'bin/main.js'), join(server, 'cli/main.js')]) {
    try {
      await access(cli);
      return cli;
    } catch {
      // try the next layout
    }
  }
  throw new UsageError(
    `No ${server}/bin/main.js: build that checkout first (pnpm install && pnpm build in ${dir}).`,
  );
}

/** One side: its cluster, a pool to its n0, what it has measured, and its fresh-key counter. */
interface Side {
  readonly name: 'this' | 'other';
  readonly cluster: Cluster;
  readonly pool: Pool;
  readonly processes: ProcessSampler;
  readonly fresh: KeyCounter;
}

export async function abCommand(argv: readonly string[], io: SubcommandIo): Promise<number> {
  const options = parseAbArgs(argv);
  if (options.help) {
    io.out(AB_USAGE);
    return 0;
  }
  const cliPath = await otherCli(options.against);
  await checkQuietMachine(options.force, io.out);
  const samples: AbSample[] = [];
  for (let pair = 0; pair < options.pairs && !io.signal.aborted; pair++) {
    // Whatever favours the cluster started (and loaded) first, or second, favours each side in
    // half the pairs: the other side's first in the first pair.
    const order = pair % 2 === 0 ? (['other', 'this'] as const) : (['this', 'other'] as const);
    samples.push(...(await measurePair(options, cliPath, order, pair, io)));
  }
  io.out(renderAb(options, summarizeAb(samples)));
  return io.signal.aborted ? 130 : 0;
}

/** One pair of clusters, started in `order`, loaded, measured for --rounds rounds, stopped. */
async function measurePair(
  options: AbOptions,
  cliPath: string,
  order: readonly ['this' | 'other', 'this' | 'other'],
  pair: number,
  io: SubcommandIo,
): Promise<AbSample[]> {
  const sides: Side[] = [];
  try {
    for (const name of order) {
      const cluster = await startLocalCluster({
        nodes: 3,
        n: 3,
        r: 2,
        w: 2,
        keepData: false,
        ...(name === 'other' ? { cliPath } : {}),
      });
      sides.push(openSide(name, cluster, options.connections));
      io.out(`pair ${pair + 1}, ${name}: ${cluster.nodes.map((n) => n.url).join(', ')}`);
    }
    return await measure(options, sides, io, pair);
  } finally {
    for (const side of sides) {
      side.processes.stop();
      await side.pool.close();
      await side.cluster.stop();
    }
  }
}

function openSide(name: 'this' | 'other', cluster: Cluster, connections: number): Side {
  const processes = new ProcessSampler();
  for (const node of cluster.nodes) {
    if (node.pid !== undefined) processes.watch({ name: node.nodeId, pid: node.pid });
  }
  return {
    name,
    cluster,
    pool: createPool(cluster.nodes[0]!.url, connections),
    processes,
    fresh: { next: 0 },
  };
}

async function measure(
  options: AbOptions,
  sides: readonly Side[],
  io: SubcommandIo,
  pair: number,
): Promise<AbSample[]> {
  const rng = createRng(1);
  const values = makeValues(VALUE_BYTES, DISTINCT_VALUES, rng);
  const prefix = `ab${Date.now().toString(36)}-`;
  const target = (side: Side): LoadTarget => ({ pools: [side.pool], prefix, values, rng });
  const window = (side: Side, name: string, driver: Driver, load = false): Promise<PhaseResult> =>
    runPhase(
      {
        head: { name, system: 'tessera', target: 'one' },
        workers: options.connections,
        warmupMs: load ? 0 : options.warmupS * 1000,
        durationMs: load ? LOAD_PHASE_MAX_MS : options.windowS * 1000,
        untilDone: load,
        driver,
      },
      { progress: io.progress, processes: side.processes, signal: io.signal },
    );
  for (const side of sides) {
    io.out(`Loading ${options.keys} keys into ${side.name}…`);
    await window(side, 'load', loadDriver(target(side), options.keys), true);
  }
  const samples: AbSample[] = [];
  for (let r = 0; r < options.rounds && !io.signal.aborted; r++) {
    // this, other; then other, this; … Rounds are numbered across pairs.
    const round = pair * options.rounds + r;
    const order = (r % 2 === 0) === (sides[0]!.name === 'this') ? sides : [...sides].reverse();
    for (const workload of options.workloads) {
      for (const side of order) {
        const keys = createKeyChooser('zipfian', options.keys, rng);
        const driver = workloadDriver(WORKLOADS[workload], target(side), keys, side.fresh);
        const result = await window(side, workload, driver);
        samples.push(sampleOf(workload, side.name, round, result, pair));
      }
    }
    io.out(`pair ${pair + 1} of ${options.pairs}: round ${r + 1} of ${options.rounds} done`);
  }
  return samples;
}

export function sampleOf(
  workload: string,
  side: 'this' | 'other',
  round: number,
  result: Pick<PhaseResult, 'ops' | 'opsPerSec' | 'processes'>,
  pair = 0,
): AbSample {
  const perOp = (cpuMs: number): number => (result.ops === 0 ? Number.NaN : (cpuMs * 1000) / result.ops);
  const { n0, ...others } = result.processes;
  const replicasMs = Object.values(others).reduce((sum, p) => sum + p.cpuMs, 0);
  return {
    workload,
    side,
    pair,
    round,
    opsPerSec: result.opsPerSec,
    n0UsPerOp: perOp(n0?.cpuMs ?? Number.NaN),
    replicasUsPerOp: perOp(replicasMs),
  };
}

export function renderAb(
  options: Pick<AbOptions, 'against' | 'windowS'>,
  summaries: readonly AbWorkloadSummary[],
): string {
  const rows = summaries.flatMap((s) => [
    figureRow(s, 'ops/s', s.opsPerSec, formatCount),
    figureRow(s, 'CPU µs/op, n0', s.n0UsPerOp, (v) => v.toFixed(0)),
    figureRow(s, 'CPU µs/op, n1 + n2', s.replicasUsPerOp, (v) => v.toFixed(0)),
  ]);
  const table = renderTable(
    [
      'workload',
      'figure',
      'this (median)',
      'other (median)',
      'this / other (median of rounds)',
      'range',
      'this lower in',
    ],
    rows,
    new Set([2, 3, 4]),
  );
  const pairRows = summaries.flatMap((s) =>
    s.byPair.map((p) => [
      s.workload,
      String(p.pair + 1),
      String(p.rounds),
      p.opsPerSec.toFixed(3),
      p.n0UsPerOp.toFixed(3),
      p.replicasUsPerOp.toFixed(3),
    ]),
  );
  const byPair = renderTable(
    ['workload', 'pair', 'rounds', 'ops/s', 'CPU µs/op, n0', 'CPU µs/op, n1 + n2'],
    pairRows,
    new Set([2, 3, 4, 5]),
  );
  return [
    `\n# bench ab: this checkout against ${options.against}, windows of ${options.windowS} s\n`,
    table,
    '',
    'Per pair of clusters, this / other (median of its rounds). Rounds of one pair share its two clusters, each of which keeps a speed of its own: a difference is real only where every pair shows it.',
    '',
    byPair,
    '',
  ].join('\n');
}

function figureRow(
  s: AbWorkloadSummary,
  label: string,
  f: PairedFigure,
  format: (v: number) => string,
): string[] {
  const ratio = (v: number): string => v.toFixed(3);
  return [
    s.workload,
    label,
    format(f.thisMedian),
    format(f.otherMedian),
    ratio(f.ratioMedian),
    `${ratio(f.ratioMin)}-${ratio(f.ratioMax)}`,
    `${f.thisLower} of ${s.rounds}`,
  ];
}
