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
--window-s seconds on each cluster in turn (this, other, then other, this, …). Prints each side's
medians and the median of the paired ratios this / other: CPU per operation of n0 and of the two
other nodes, and throughput. Nothing is written to disk.

  --against DIR     the other checkout (required)
  --workloads LIST  which workloads, of A, B, C, W (default W,C)
  --rounds R        rounds (default 8)
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
      rounds: { type: 'string', default: '8' },
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
  const sides: Side[] = [];
  try {
    // The other cluster first (started, then loaded): whatever favours the first cluster (a null
    // check of a build against itself showed up to a few percent) then favours the other side.
    for (const name of ['other', 'this'] as const) {
      const cluster = await startLocalCluster({
        nodes: 3,
        n: 3,
        r: 2,
        w: 2,
        keepData: false,
        ...(name === 'other' ? { cliPath } : {}),
      });
      sides.push(openSide(name, cluster, options.connections));
      io.out(`${name}: ${cluster.nodes.map((n) => n.url).join(', ')}`);
    }
    const samples = await measure(options, sides, io);
    io.out(renderAb(options, summarizeAb(samples)));
    return io.signal.aborted ? 130 : 0;
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

async function measure(options: AbOptions, sides: readonly Side[], io: SubcommandIo): Promise<AbSample[]> {
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
  for (let round = 0; round < options.rounds && !io.signal.aborted; round++) {
    // this, other; then other, this; …
    const order = (round % 2 === 0) === (sides[0]!.name === 'this') ? sides : [...sides].reverse();
    for (const workload of options.workloads) {
      for (const side of order) {
        const keys = createKeyChooser('zipfian', options.keys, rng);
        const driver = workloadDriver(WORKLOADS[workload], target(side), keys, side.fresh);
        const result = await window(side, workload, driver);
        samples.push(sampleOf(workload, side.name, round, result));
      }
    }
    io.out(`round ${round + 1} of ${options.rounds} done`);
  }
  return samples;
}

export function sampleOf(
  workload: string,
  side: 'this' | 'other',
  round: number,
  result: Pick<PhaseResult, 'ops' | 'opsPerSec' | 'processes'>,
): AbSample {
  const perOp = (cpuMs: number): number => (result.ops === 0 ? Number.NaN : (cpuMs * 1000) / result.ops);
  const { n0, ...others } = result.processes;
  const replicasMs = Object.values(others).reduce((sum, p) => sum + p.cpuMs, 0);
  return {
    workload,
    side,
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
  return `\n# bench ab: this checkout against ${options.against}, windows of ${options.windowS} s\n\n${table}\n`;
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
