/** Command-line options of `pnpm bench paper` (the paper's experiments) and `pnpm bench charts`. */
import { parseArgs } from 'node:util';
import { isDurability, UsageError } from '../options.js';
import { FIG8_DEFAULTS, FIG8_QUICK, type Fig8Settings } from './fig8.js';
import {
  COORDINATION_DEFAULTS,
  type CoordinationSettings,
  DIVERGENCE_DEFAULTS,
  type DivergenceSettings,
  DURABILITY_DEFAULTS,
  type DurabilitySettings,
} from './model.js';

export const EXPERIMENTS = ['fig8', 'divergence', 'table2', 'fig5'] as const;
export type Experiment = (typeof EXPERIMENTS)[number];

export interface PaperOptions {
  readonly help: boolean;
  readonly only: readonly Experiment[];
  readonly quick: boolean;
  readonly outDir: string;
  /** Where the charts go; undefined with --no-charts. */
  readonly imagesDir: string | undefined;
  readonly fig8: Fig8Settings;
  readonly divergence: DivergenceSettings;
  readonly coordination: CoordinationSettings;
  readonly durability: DurabilitySettings;
}

export interface ChartsOptions {
  readonly help: boolean;
  readonly resultsDir: string;
  readonly imagesDir: string;
}

export const DEFAULT_IMAGES_DIR = 'docs/images';

export const PAPER_USAGE = `Usage: pnpm bench paper [options]

Reproduces the Dynamo paper's section 6 results on this machine, writes
bench-results/paper-<time>.json and .md, then the charts (as \`pnpm bench charts\`).

  fig8        Figure 8 by simulation: load-balancing efficiency of strategy 1 vs 3 (seconds)
  divergence  6.3: share of reads seeing 1, 2, 3, 4+ versions per number of concurrent writers
  table2      Table 2: client-driven vs server-driven coordination, mean and p99.9 latency (5 nodes)
  fig5        Figure 5: p99.9 write latency per second, buffered vs durable writes

  --only LIST             experiments to run, comma-separated (default: all four)
  --quick                 smoke check: short phases, a smaller simulation (about 1.5 minutes)
  --duration-s S          measured seconds of every cluster phase (defaults: table2 15, fig5 30,
                          divergence 5 per writer count; --quick: 4, 5, 2)
  --rate R                table2 and fig5: operations started per second, an open loop so every
                          mode gets the same load (default 100); 0 for a closed loop instead
  --connections C         table2 and fig5: most requests in flight (default 32)
  --writers LIST          divergence: writer counts (default 1,2,4,8,16)
  --durability-modes LIST fig5: modes to compare (default process,fsync-one,fsync; a mode the
                          nodes refuse is reported as skipped)
  --table2-nodes K        table2: nodes of its cluster (default 5; with N=3, 40% of requests reach
                          a node that is not a replica of the key)
  --out DIR               where results go (default bench-results)
  --images DIR            where charts go (default ${DEFAULT_IMAGES_DIR})
  --no-charts             do not write charts
  --seed S                seed of the simulation and the load (default 1)
  -h, --help              this text

Usage: pnpm bench charts [--results DIR] [--images DIR]

Writes the SVG charts from the latest bench-results/paper-*.json holding each experiment.
`;

export function parsePaperArgs(argv: readonly string[]): PaperOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      'duration-s': { type: 'string' },
      connections: { type: 'string' },
      rate: { type: 'string' },
      writers: { type: 'string' },
      'durability-modes': { type: 'string' },
      'table2-nodes': { type: 'string', default: '5' },
      out: { type: 'string', default: 'bench-results' },
      images: { type: 'string', default: DEFAULT_IMAGES_DIR },
      charts: { type: 'boolean', default: true },
      seed: { type: 'string', default: '1' },
    },
  });
  const quick = values.quick;
  const seed = whole('--seed', values.seed, 0, 2 ** 32 - 1);
  const connections = (standard: number): number =>
    values.connections === undefined ? standard : whole('--connections', values.connections, 1, 1_000);
  const rate = (standard: number | undefined): number | undefined => {
    if (values.rate === undefined) return standard;
    const r = whole('--rate', values.rate, 0, 100_000);
    return r === 0 ? undefined : r;
  };
  const duration = values['duration-s'];
  const durationS = (standard: number, short: number): number =>
    duration === undefined ? (quick ? short : standard) : seconds('--duration-s', duration);
  const warmupS = (standard: number): number => (quick ? Math.min(1, standard) : standard);
  return {
    help: values.help,
    only: listOf('--only', values.only ?? EXPERIMENTS.join(','), isExperiment),
    quick,
    outDir: values.out,
    imagesDir: values.charts ? values.images : undefined,
    fig8: { ...(quick ? FIG8_QUICK : FIG8_DEFAULTS), seed },
    divergence: {
      ...DIVERGENCE_DEFAULTS,
      writers: (values.writers ?? DIVERGENCE_DEFAULTS.writers.join(','))
        .split(',')
        .map((w) => whole('--writers', w.trim(), 1, 256)),
      durationS: durationS(DIVERGENCE_DEFAULTS.durationS, 2),
      warmupS: warmupS(DIVERGENCE_DEFAULTS.warmupS),
      seed,
    },
    coordination: {
      ...COORDINATION_DEFAULTS,
      nodes: whole('--table2-nodes', values['table2-nodes'], COORDINATION_DEFAULTS.n, 16),
      connections: connections(COORDINATION_DEFAULTS.connections),
      ratePerSec: rate(COORDINATION_DEFAULTS.ratePerSec),
      keys: quick ? 500 : COORDINATION_DEFAULTS.keys,
      durationS: durationS(COORDINATION_DEFAULTS.durationS, 4),
      warmupS: warmupS(COORDINATION_DEFAULTS.warmupS),
      seed,
    },
    durability: {
      ...DURABILITY_DEFAULTS,
      modes: listOf(
        '--durability-modes',
        values['durability-modes'] ?? DURABILITY_DEFAULTS.modes.join(','),
        isDurability,
      ),
      connections: connections(DURABILITY_DEFAULTS.connections),
      ratePerSec: rate(DURABILITY_DEFAULTS.ratePerSec),
      durationS: durationS(DURABILITY_DEFAULTS.durationS, 5),
      warmupS: warmupS(DURABILITY_DEFAULTS.warmupS),
      seed,
    },
  };
}

export function parseChartsArgs(argv: readonly string[]): ChartsOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      results: { type: 'string', default: 'bench-results' },
      images: { type: 'string', default: DEFAULT_IMAGES_DIR },
    },
  });
  return { help: values.help, resultsDir: values.results, imagesDir: values.images };
}

function isExperiment(value: string): value is Experiment {
  return (EXPERIMENTS as readonly string[]).includes(value);
}

function listOf<T extends string>(flag: string, text: string, is: (v: string) => v is T): T[] {
  const items = text.split(',').map((s) => s.trim());
  for (const item of items) if (!is(item)) throw new UsageError(`${flag}: unknown "${item}".`);
  return [...new Set(items.filter(is))];
}

function whole(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}".`);
  }
  return value;
}

function seconds(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0.5 || value > 3_600) {
    throw new UsageError(`${flag} must be a number of seconds from 0.5 to 3600, got "${text}".`);
  }
  return value;
}
