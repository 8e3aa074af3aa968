/**
 * The data of `pnpm bench transactions`: settings and defaults, what a run measured (as written to
 * bench-results/transactions-*.json), the rows of its tables, and what the DynamoDB transactions
 * paper (Idziorek et al., USENIX ATC 2023, section 5) says about the same figures. No I/O here, so
 * the report and its tests load without the cluster code.
 */
import type { Durability } from '../options.js';
import type { ClusterShape } from '../paper/model.js';
import { nodeCpuUsPerOp } from '../paper/model.js';
import type { ClusterInfo, LatencySummary, MachineInfo, PhaseResult } from '../results.js';
import type { Revision } from '../revision.js';

export interface TxnSettings extends ClusterShape {
  /** The strong namespace the nodes are started with (`--strong`); every key of the run is in it but the plain ones. */
  readonly namespace: string;
  /** Figures 5 and 6: the transaction sizes, one write phase and one transactGet phase each. */
  readonly items: readonly number[];
  /** Transactions in flight during the size sweep (closed loop): 1 measures one at a time. */
  readonly sweepConnections: number;
  readonly sweepS: number;
  readonly sweepWarmupS: number;
  /** Figures 7 and 8: operations started per second (open loop), each of a kind drawn at random. */
  readonly mixRatePerSec: number;
  /** The most operations in flight during the mix (an open loop's bound). */
  readonly mixConnections: number;
  readonly mixS: number;
  /** Warmup of the mix and throughput phases. */
  readonly warmupS: number;
  /** Run the throughput phases (closed loop, `throughputConnections`). */
  readonly throughput: boolean;
  readonly throughputConnections: number;
  readonly throughputS: number;
  /** Strong and plain keys written before the measured phases, read by the reads. */
  readonly readKeys: number;
  /** Strong keys written before, updated round-robin by the conditional puts (If-Match). */
  readonly condKeys: number;
  readonly valueBytes: number;
  /** `tessera start --durability`; undefined leaves the node's default. */
  readonly durability: Durability | undefined;
  readonly seed: number;
}

export const TXN_DEFAULTS: TxnSettings = {
  nodes: 3,
  n: 3,
  r: 2,
  w: 2,
  namespace: 'bench',
  items: [1, 2, 4, 8, 16, 32, 64, 100],
  sweepConnections: 1,
  sweepS: 3,
  sweepWarmupS: 0.5,
  mixRatePerSec: 150,
  mixConnections: 32,
  mixS: 12,
  warmupS: 2,
  throughput: true,
  throughputConnections: 32,
  throughputS: 4,
  readKeys: 256,
  condKeys: 512,
  // The paper's items are 900 bytes.
  valueBytes: 900,
  durability: undefined,
  seed: 1,
};

/** Shorter phases for a smoke check (about 40 s). */
export const TXN_QUICK: Partial<TxnSettings> = {
  items: [1, 4, 16, 100],
  sweepS: 1.5,
  sweepWarmupS: 0.3,
  mixS: 5,
  warmupS: 1,
  throughputS: 2,
};

/** The operations of the Figures 7 and 8 mix, one kind each (also the throughput phases' names). */
export const MIX_KINDS = [
  'plain get',
  'strong get',
  'transactGet 1',
  'plain put',
  'strong put',
  'transaction 1',
] as const;
export type MixKind = (typeof MIX_KINDS)[number];

/** Throughput phases: a single-item transaction against the single writes. */
export const THROUGHPUT_KINDS: readonly MixKind[] = ['plain put', 'strong put', 'transaction 1'];

/** What each kind costs in the protocol (round trips from the coordinating node), and its plain counterpart. */
export const KIND_COST: Readonly<
  Record<
    MixKind,
    { readonly label: string; readonly rounds: string; readonly plain: 'plain get' | 'plain put' }
  >
> = {
  'plain get': { label: 'plain get (R=2 of N=3)', rounds: 'no consensus, 1 round trip', plain: 'plain get' },
  'strong get': { label: 'strong get', rounds: '1 consensus round, 2 round trips', plain: 'plain get' },
  'transactGet 1': {
    label: 'transactGet, 1 key',
    rounds: '2 rounds (read twice), 4 round trips',
    plain: 'plain get',
  },
  'plain put': { label: 'plain put (W=2 of N=3)', rounds: 'no consensus, 1 round trip', plain: 'plain put' },
  'strong put': {
    label: 'strong put with If-Match',
    rounds: '1 consensus round, 2 round trips',
    plain: 'plain put',
  },
  'transaction 1': {
    label: 'transaction, 1 put',
    rounds: '4 rounds (record, intent, commit, settle), 8 round trips',
    plain: 'plain put',
  },
};

export function isMixKind(name: string): name is MixKind {
  return (MIX_KINDS as readonly string[]).includes(name);
}

export interface SweepPoint {
  readonly items: number;
  /** Put-only transactions of `items` fresh keys. */
  readonly write?: PhaseResult;
  /** transactGet of `items` distinct written keys. */
  readonly read?: PhaseResult;
}

export interface TxnReport {
  readonly kind: 'transactions';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly revision: Revision;
  readonly machine: MachineInfo;
  readonly quick: boolean;
  readonly settings: TxnSettings;
  readonly cluster?: ClusterInfo;
  readonly load?: PhaseResult;
  readonly sweep: readonly SweepPoint[];
  /** Figures 7 and 8: every kind of MIX_KINDS in one phase; per-kind latencies in `byOp`. */
  readonly mix?: PhaseResult;
  /** One phase per kind of THROUGHPUT_KINDS, named after it. */
  readonly throughput: readonly PhaseResult[];
}

/** The paper's statements about its Figures 5 to 8 (section 5.2 and 5.3), quoted. */
export const PAPER_STATEMENTS = {
  fig56:
    'As the number of operations in each transaction increases, so does the latency. Although reads and writes to items within a transaction are processed in parallel, the latency of the transaction request is determined by its slowest operation.',
  fig7: 'Latency for read transactions is slightly less than 2x the latency for non-transactional reads, on account of the two consistent reads that are required as part of the TransactGetItems protocol.',
  fig8: 'Latency for write transactions is about 4x the latency of non-transactional writes. This is as a result of the two-phase write protocol being executed on each TransactWriteItems request, with additional overhead being added for writing and checkpointing the transaction state to the Transaction Ledger.',
} as const;

export interface SweepRow {
  readonly items: number;
  readonly write: LatencySummary | undefined;
  readonly writeCpuMs: number | undefined;
  readonly read: LatencySummary | undefined;
  readonly readCpuMs: number | undefined;
  readonly errors: Readonly<Record<string, number>>;
}

export function sweepRows(sweep: readonly SweepPoint[]): SweepRow[] {
  return sweep.map((point) => ({
    items: point.items,
    write: point.write?.latency,
    writeCpuMs: cpuMsPerOp(point.write),
    read: point.read?.latency,
    readCpuMs: cpuMsPerOp(point.read),
    errors: addErrors(point.write?.errors ?? {}, point.read?.errors ?? {}),
  }));
}

function cpuMsPerOp(phase: PhaseResult | undefined): number | undefined {
  const us = phase === undefined ? undefined : nodeCpuUsPerOp(phase);
  return us === undefined ? undefined : us / 1000;
}

function addErrors(
  a: Readonly<Record<string, number>>,
  b: Readonly<Record<string, number>>,
): Record<string, number> {
  const sum: Record<string, number> = { ...a };
  for (const [code, n] of Object.entries(b)) sum[code] = (sum[code] ?? 0) + n;
  return sum;
}

/** One comparison of Figures 7 and 8: our ratio of two kinds, at p50 and p99, beside the paper's. */
export interface MixComparison {
  readonly label: string;
  readonly p50: number;
  readonly p99: number;
  readonly paper: string;
}

export const MIX_COMPARISONS: readonly {
  readonly label: string;
  readonly over: MixKind;
  readonly under: MixKind;
  readonly paper: string;
}[] = [
  {
    label: 'transactGet (1 key) / strong get',
    over: 'transactGet 1',
    under: 'strong get',
    paper: 'slightly less than 2× (Figure 7, vs consistent GetItem)',
  },
  { label: 'transactGet (1 key) / plain get', over: 'transactGet 1', under: 'plain get', paper: '–' },
  {
    label: 'transaction (1 put) / strong put',
    over: 'transaction 1',
    under: 'strong put',
    paper: 'about 4× (Figure 8, vs PutItem)',
  },
  { label: 'transaction (1 put) / plain put', over: 'transaction 1', under: 'plain put', paper: '–' },
  { label: 'strong put / plain put', over: 'strong put', under: 'plain put', paper: '–' },
  { label: 'strong get / plain get', over: 'strong get', under: 'plain get', paper: '–' },
];

export function mixComparisons(mix: PhaseResult): MixComparison[] {
  return MIX_COMPARISONS.map(({ label, over, under, paper }) => {
    const a = mix.byOp[over]?.latency;
    const b = mix.byOp[under]?.latency;
    return {
      label,
      p50: a === undefined || b === undefined ? Number.NaN : a.p50Ms / b.p50Ms,
      p99: a === undefined || b === undefined ? Number.NaN : a.p99Ms / b.p99Ms,
      paper,
    };
  });
}
