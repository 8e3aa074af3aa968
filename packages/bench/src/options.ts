/** Command-line options of `pnpm bench`, parsed and checked once, here. */
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { KeyDistribution } from './keys.js';
import { isLoopbackUrl } from './ports.js';
import type { TargetMode } from './results.js';
import { VALUE_BYTES_MIN } from './values.js';
import { isWorkloadName, type WorkloadName } from './workloads.js';

export interface BenchOptions {
  readonly help: boolean;
  readonly workloads: readonly WorkloadName[];
  readonly targets: readonly TargetMode[];
  readonly distribution: KeyDistribution;
  readonly keys: number;
  readonly valueBytes: number;
  readonly connections: number;
  /** Open loop: workload phases start this many operations per second; undefined for a closed loop. */
  readonly ratePerSec: number | undefined;
  readonly durationS: number;
  readonly warmupS: number;
  readonly urls: readonly string[];
  readonly nodes: number;
  readonly n: number;
  readonly r: number;
  readonly w: number;
  readonly bare: boolean;
  readonly outDir: string;
  readonly seed: number;
  readonly keepData: boolean;
  /** Run even when other work keeps the machine busy (quiet-machine.ts). */
  readonly force: boolean;
  readonly cpuProfDir: string | undefined;
  readonly quick: boolean;
  /** Passed to the nodes the harness starts (`tessera start --durability`); undefined: their default. */
  readonly durability: Durability | undefined;
  /** Passed to the nodes the harness starts (`tessera start --config`, absolute); undefined: none. */
  readonly nodeConfig: string | undefined;
  /** --soak: one long workload phase, reported per window of windowS (see soak-minutes.ts). */
  readonly soak: boolean;
  readonly windowS: number;
}

/** Node durability modes the bench can ask for; a node that lacks one refuses to start. */
export const DURABILITY_MODES = ['process', 'fsync-one', 'fsync'] as const;
export type Durability = (typeof DURABILITY_MODES)[number];

export function isDurability(value: string): value is Durability {
  return (DURABILITY_MODES as readonly string[]).includes(value);
}

export const USAGE = `Usage: pnpm bench [options]        (or: node packages/bench/dist/main.js [options])
       pnpm bench paper [options]  the Dynamo paper's section 6 experiments (see pnpm bench paper --help)
       pnpm bench charts           their charts, from bench-results/paper-*.json
       pnpm bench --workload transactions [options]   (or: pnpm bench transactions)
                                   strong keys and transactions in the shapes of the DynamoDB
                                   transactions paper's Figures 5-8 (see --workload transactions --help)
       pnpm bench probe [options]  the same phases against a replication-shape probe, not Tessera
                                   (see pnpm bench probe --help)

Runs YCSB-style workloads against a Tessera cluster and a bare fastify server, and writes
bench-results/<time>.json and .md.

  --workloads LIST      comma-separated, run in this order (default W,C,A)
                          A 50% read / 50% read-modify-write with context
                          B 95% read / 5% read-modify-write with context
                          C 100% read
                          W 100% writes of fresh keys
  --target MODE         one (all load to the first node), spread (over all nodes), or both (default one)
  --routing R           server (default: requests go where --target says, and a node that is not a
                        replica of the key forwards) or client (each request to its key's first
                        replica, from the ring in GET /v1/status, as @tessera/client routes)
  --distribution D      zipfian or uniform key choice for reads (default zipfian)
  --keys K              keys written in the load phase before the first read workload (default 10000)
  --value-bytes B       serialized size of each value (default 150)
  --connections C       concurrent connections, one request in flight each (default 50)
  --rate R              open loop: the workload phases start R operations per second, latency
                        counted from each scheduled start (default: closed loop, as fast as the
                        connections go); e.g. half of a closed-loop run's ops/s for "half load"
  --duration-s S        measured seconds per phase (default 10)
  --warmup-s S          unmeasured seconds before each phase (default 2; 5 with --rate)
  --quick               smoke check: 3 s phases, 1 s warmup, 2000 keys
  --soak                sustained load: one workload (default A) for --duration-s (default 600)
                        after --warmup-s (default 10), against the cluster only, reported per
                        window: throughput, latency, and per node CPU, heap, RSS, event-loop delay;
                        the verdict compares every window with the first (target: within 10%)
  --window-s S          the soak's window (default 60; with --quick 10, and 30 s in all)
  --url URL[,URL...]    target running nodes (loopback only) instead of starting a local cluster
  --nodes K             nodes of the local cluster (default 3)
  --n N --r R --w W     replication settings of the local cluster (default 3, 2, 2)
  --durability D        process, fsync-one or fsync: passed to the local nodes (default: theirs)
  --node-config FILE    a node config file (docs/operations.md) passed to every local node as
                        tessera start --config FILE: settings to compare, e.g. stateCacheBytesMax
  --no-bare             skip the bare fastify baseline
  --out DIR             where results go (default bench-results)
  --seed S              seed of the key and value choice (default 1)
  --keep-data           keep the local cluster's temp dir (data and logs)
  --force               run even when other work keeps more than a quarter of a core busy (by
                        default the run refuses to start: its figures would be low)
  --cpu-prof-dir DIR    run local node n0 with --cpu-prof; its .cpuprofile lands in DIR
  -h, --help            this text
`;

const TARGET_MODES: Readonly<Record<string, readonly TargetMode[]>> = {
  one: ['one'],
  spread: ['spread'],
  both: ['one', 'spread'],
};

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      workloads: { type: 'string' },
      target: { type: 'string' },
      routing: { type: 'string', default: 'server' },
      durability: { type: 'string' },
      'node-config': { type: 'string' },
      distribution: { type: 'string', default: 'zipfian' },
      keys: { type: 'string' },
      'value-bytes': { type: 'string', default: '150' },
      connections: { type: 'string', default: '50' },
      rate: { type: 'string' },
      'duration-s': { type: 'string' },
      'warmup-s': { type: 'string' },
      quick: { type: 'boolean', default: false },
      soak: { type: 'boolean', default: false },
      'window-s': { type: 'string' },
      url: { type: 'string', multiple: true, default: [] },
      nodes: { type: 'string', default: '3' },
      n: { type: 'string', default: '3' },
      r: { type: 'string', default: '2' },
      w: { type: 'string', default: '2' },
      bare: { type: 'boolean', default: true },
      out: { type: 'string', default: 'bench-results' },
      seed: { type: 'string', default: '1' },
      'keep-data': { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'cpu-prof-dir': { type: 'string' },
    },
  });
  const { quick, soak } = values;
  const workloads = (values.workloads ?? (soak ? 'A' : 'W,C,A'))
    .split(',')
    .map((w) => w.trim().toUpperCase());
  for (const w of workloads) {
    if (isTransactionsName(w)) {
      throw new UsageError(
        '--workloads: transactions run alone, with options of their own: pnpm bench --workload transactions.',
      );
    }
    if (!isWorkloadName(w)) throw new UsageError(`--workloads: unknown workload "${w}" (use A, B, C, W).`);
  }
  const targets = chooseTargets(values.routing, values.target);
  if (values.distribution !== 'zipfian' && values.distribution !== 'uniform') {
    throw new UsageError('--distribution must be zipfian or uniform.');
  }
  const urls = values.url.flatMap((u) => u.split(',')).map((u) => u.trim().replace(/\/+$/, ''));
  for (const url of urls) {
    if (!isLoopbackUrl(url))
      throw new UsageError(`--url ${url}: only loopback (127.0.0.1, localhost) is allowed.`);
  }
  const n = whole('--n', values.n, 1, 16);
  const r = whole('--r', values.r, 1, n);
  const w = whole('--w', values.w, 1, n);
  const nodes = whole('--nodes', values.nodes, 1, 16);
  if (urls.length === 0 && n > nodes) throw new UsageError(`--n ${n} needs at least ${n} nodes (--nodes).`);
  const durability = values.durability;
  if (durability !== undefined && !isDurability(durability)) {
    throw new UsageError(`--durability must be one of ${DURABILITY_MODES.join(', ')}.`);
  }
  if (durability !== undefined && urls.length > 0) {
    throw new UsageError('--durability configures nodes the harness starts; it cannot be used with --url.');
  }
  if (soak && (workloads.length !== 1 || targets.length !== 1)) {
    throw new UsageError(
      '--soak runs one workload on one target: give one --workloads and --target one or spread.',
    );
  }
  // A soak keeps up to 200,000 latencies per window in memory (windows.ts): two hours at most.
  const durationMaxS = soak ? 7_200 : 3_600;
  const durationS = seconds(
    '--duration-s',
    values['duration-s'] ?? defaultDuration(quick, soak),
    0.1,
    durationMaxS,
  );
  const windowS = seconds('--window-s', values['window-s'] ?? (quick ? '10' : '60'), 1, 3_600);
  if (soak && windowS > durationS)
    throw new UsageError(`--window-s ${windowS} is longer than --duration-s ${durationS}.`);
  if (!soak && values['window-s'] !== undefined) throw new UsageError('--window-s applies to --soak only.');
  const nodeConfig = nodeConfigOf(values['node-config'], urls.length > 0);
  const cpuProfDir = values['cpu-prof-dir'];
  if (cpuProfDir !== undefined && urls.length > 0) {
    throw new UsageError('--cpu-prof-dir profiles a node the harness starts; it cannot be used with --url.');
  }
  return {
    help: values.help,
    workloads: workloads.filter(isWorkloadName),
    targets,
    distribution: values.distribution,
    keys: whole('--keys', values.keys ?? (quick ? '2000' : '10000'), 1, 10_000_000),
    valueBytes: whole('--value-bytes', values['value-bytes'], VALUE_BYTES_MIN, 1024 * 1024),
    connections: whole('--connections', values.connections, 1, 10_000),
    ratePerSec: values.rate === undefined ? undefined : whole('--rate', values.rate, 1, 1_000_000),
    durationS,
    warmupS: seconds(
      '--warmup-s',
      values['warmup-s'] ?? defaultWarmup(quick, soak, values.rate !== undefined),
      0,
      600,
    ),
    urls,
    nodes,
    n,
    r,
    w,
    bare: values.bare && !soak,
    outDir: values.out,
    seed: whole('--seed', values.seed, 0, 2 ** 32 - 1),
    keepData: values['keep-data'],
    force: values.force,
    cpuProfDir,
    quick,
    durability,
    nodeConfig,
    soak,
    windowS,
  };
}

/** `--node-config`: a readable file, for nodes the harness starts; its absolute path. */
function nodeConfigOf(file: string | undefined, attached: boolean): string | undefined {
  if (file === undefined) return undefined;
  if (attached)
    throw new UsageError('--node-config configures nodes the harness starts; it cannot be used with --url.');
  const path = resolve(file);
  try {
    accessSync(path, constants.R_OK);
  } catch {
    throw new UsageError(
      `--node-config ${file}: no readable file there (a node config file, docs/operations.md).`,
    );
  }
  return path;
}

function defaultDuration(quick: boolean, soak: boolean): string {
  if (soak) return quick ? '30' : '600';
  return quick ? '3' : '10';
}

/**
 * Unmeasured seconds before each phase. An open loop (`paced`) warms up for 5: a fresh cluster
 * and connections serve a few hundred puts per second in their first second and need about 3.5 s
 * to keep a schedule of 5,600 puts/s; with the 2 s a closed loop warms up, the first measured
 * seconds of an open loop were hundreds of ms late (docs/benchmarks.md, "Issue 18, fourth round").
 */
function defaultWarmup(quick: boolean, soak: boolean, paced: boolean): string {
  if (soak) return quick ? '2' : '10';
  if (quick) return '1';
  return paced ? '5' : '2';
}

/**
 * `--workload transactions` (or `--workloads transactions`, `=` forms too) selects the transactions
 * mode, the same as `pnpm bench transactions`: answers the other arguments, for that mode's own
 * parser; undefined when the mode is not selected.
 */
export function transactionsModeArgs(argv: readonly string[]): string[] | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const joined = /^--workloads?=(.*)$/.exec(arg);
    if (joined !== null && isTransactionsName(joined[1]!)) return [...argv.slice(0, i), ...argv.slice(i + 1)];
    const next = argv[i + 1];
    if ((arg === '--workload' || arg === '--workloads') && next !== undefined && isTransactionsName(next)) {
      return [...argv.slice(0, i), ...argv.slice(i + 2)];
    }
  }
  return undefined;
}

function isTransactionsName(text: string): boolean {
  return ['transactions', 'transaction', 'txn'].includes(text.trim().toLowerCase());
}

/** Server routing follows --target; client routing sends every request to its key's first replica. */
function chooseTargets(routing: string, target: string | undefined): readonly TargetMode[] {
  if (routing === 'client') {
    if (target !== undefined) throw new UsageError('--target applies to --routing server only.');
    return ['replica'];
  }
  if (routing !== 'server') throw new UsageError('--routing must be client or server.');
  const targets = TARGET_MODES[target ?? 'one'];
  if (targets === undefined) throw new UsageError('--target must be one, spread or both.');
  return targets;
}

/** A whole-number flag within [min, max], or a UsageError naming it. */
export function whole(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}".`);
  }
  return value;
}

function seconds(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be a number of seconds from ${min} to ${max}, got "${text}".`);
  }
  return value;
}
