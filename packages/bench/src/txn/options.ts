/** Command-line options of `pnpm bench transactions`. */
import { parseArgs } from 'node:util';
import { TRANSACTION_ACTIONS_MAX } from '@tessera/core';
import { DURABILITY_MODES, isDurability, UsageError } from '../options.js';
import { VALUE_BYTES_MIN } from '../values.js';
import { TXN_DEFAULTS, TXN_QUICK, type TxnSettings } from './model.js';

export interface TxnOptions {
  readonly help: boolean;
  readonly quick: boolean;
  readonly outDir: string;
  readonly keepData: boolean;
  readonly settings: TxnSettings;
}

const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

export const TXN_USAGE = `Usage: pnpm bench --workload transactions [options]   (or: pnpm bench transactions [options])

Measures strong keys and transactions on a local cluster started with --strong <namespace>, in the
shapes of the DynamoDB transactions paper's Figures 5 to 8 (USENIX ATC 2023, section 5), and writes
bench-results/transactions-<time>.json and .md. About 1.5 minutes with the defaults.

  sweep       Figures 5 and 6: p50 and p99 of put-only transactions of k fresh keys and of
              transactGet of k keys, for each k of --items, one at a time (closed loop)
  mix         Figures 7 and 8: a single-item transaction, a single-key transactGet, a strong put
              with If-Match, a strong get, a plain put and a plain get, interleaved at random in
              one open-loop phase at a fixed moderate rate
  throughput  plain puts, strong puts and single-item transactions, each in a closed loop

  --items LIST          transaction sizes, 1 to ${TRANSACTION_ACTIONS_MAX} (default ${TXN_DEFAULTS.items.join(',')})
  --sweep-s S           measured seconds per size and kind (default ${TXN_DEFAULTS.sweepS}, after ${TXN_DEFAULTS.sweepWarmupS} s warmup)
  --sweep-connections C transactions in flight during the sweep (default ${TXN_DEFAULTS.sweepConnections})
  --rate R              mix: operations started per second (default ${TXN_DEFAULTS.mixRatePerSec})
  --mix-s S             mix: measured seconds (default ${TXN_DEFAULTS.mixS})
  --connections C       mix: most operations in flight; throughput: connections (default ${TXN_DEFAULTS.mixConnections})
  --throughput-s S      measured seconds per throughput phase (default ${TXN_DEFAULTS.throughputS})
  --no-throughput       skip the throughput phases
  --warmup-s S          warmup of the mix and throughput phases (default ${TXN_DEFAULTS.warmupS})
  --value-bytes B       serialized size of each value (default ${TXN_DEFAULTS.valueBytes}, the paper's item size)
  --namespace NS        the strong namespace of the run (default ${TXN_DEFAULTS.namespace})
  --durability D        ${DURABILITY_MODES.join(', ')}: passed to the nodes (default: theirs)
  --quick               smoke check: sizes 1,4,16,100 and short phases (about 40 s)
  --out DIR             where results go (default bench-results)
  --seed S              seed of key and value choice (default ${TXN_DEFAULTS.seed})
  --keep-data           keep the cluster's temp dir (data and node logs)
  -h, --help            this text
`;

export function parseTxnArgs(argv: readonly string[]): TxnOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      items: { type: 'string' },
      'sweep-s': { type: 'string' },
      'sweep-connections': { type: 'string' },
      rate: { type: 'string' },
      'mix-s': { type: 'string' },
      connections: { type: 'string' },
      'throughput-s': { type: 'string' },
      throughput: { type: 'boolean', default: true },
      'warmup-s': { type: 'string' },
      'value-bytes': { type: 'string' },
      namespace: { type: 'string' },
      durability: { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench-results' },
      seed: { type: 'string' },
      'keep-data': { type: 'boolean', default: false },
    },
  });
  const base: TxnSettings = values.quick ? { ...TXN_DEFAULTS, ...TXN_QUICK } : TXN_DEFAULTS;
  const namespace = values.namespace ?? base.namespace;
  if (!NAMESPACE.test(namespace)) {
    throw new UsageError(`--namespace must match ${NAMESPACE.source}, got "${namespace}".`);
  }
  const durability = values.durability;
  if (durability !== undefined && !isDurability(durability)) {
    throw new UsageError(`--durability must be one of ${DURABILITY_MODES.join(', ')}.`);
  }
  const items =
    values.items === undefined
      ? base.items
      : [
          ...new Set(
            values.items.split(',').map((s) => whole('--items', s.trim(), 1, TRANSACTION_ACTIONS_MAX)),
          ),
        ];
  const connections =
    values.connections === undefined ? undefined : whole('--connections', values.connections, 1, 1_000);
  const settings: TxnSettings = {
    ...base,
    namespace,
    items,
    // transactGet of k keys picks k distinct keys of the read set.
    readKeys: Math.max(base.readKeys, ...items),
    sweepS: seconds('--sweep-s', values['sweep-s'], base.sweepS),
    sweepConnections:
      values['sweep-connections'] === undefined
        ? base.sweepConnections
        : whole('--sweep-connections', values['sweep-connections'], 1, 1_000),
    mixRatePerSec: values.rate === undefined ? base.mixRatePerSec : whole('--rate', values.rate, 1, 100_000),
    mixS: seconds('--mix-s', values['mix-s'], base.mixS),
    mixConnections: connections ?? base.mixConnections,
    throughput: values.throughput,
    throughputConnections: connections ?? base.throughputConnections,
    throughputS: seconds('--throughput-s', values['throughput-s'], base.throughputS),
    warmupS: seconds('--warmup-s', values['warmup-s'], base.warmupS, 0),
    valueBytes:
      values['value-bytes'] === undefined
        ? base.valueBytes
        : whole('--value-bytes', values['value-bytes'], VALUE_BYTES_MIN, 64 * 1024),
    durability,
    seed: values.seed === undefined ? base.seed : whole('--seed', values.seed, 0, 2 ** 32 - 1),
  };
  return {
    help: values.help,
    quick: values.quick,
    outDir: values.out,
    keepData: values['keep-data'],
    settings,
  };
}

function whole(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${text}".`);
  }
  return value;
}

function seconds(flag: string, text: string | undefined, standard: number, min = 0.1): number {
  if (text === undefined) return standard;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > 3_600) {
    throw new UsageError(`${flag} must be a number of seconds from ${min} to 3600, got "${text}".`);
  }
  return value;
}
