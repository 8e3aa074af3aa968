/**
 * The summary of `pnpm bench ab` (ab.ts): per workload, each side's medians, and the paired
 * ratios of this checkout's figure over the other's in the same round. A round measures both
 * sides within seconds of each other, so the machine's drift, which moves both, mostly cancels
 * out of their ratio, and the median of the ratios is steadier than either side's median.
 */

/** One measured window of one side. */
export interface AbSample {
  readonly workload: string;
  readonly side: 'this' | 'other';
  /** The pair of clusters it ran on (0 for the first): rounds of one pair are not independent. */
  readonly pair: number;
  /** Numbered across pairs: a round belongs to one pair. */
  readonly round: number;
  readonly opsPerSec: number;
  /** CPU of the node that took the load (n0), per successful operation. */
  readonly n0UsPerOp: number;
  /** CPU of the other nodes together, per successful operation. */
  readonly replicasUsPerOp: number;
}

/** A figure on both sides: medians, and the median, least and greatest of this / other by round. */
export interface PairedFigure {
  readonly thisMedian: number;
  readonly otherMedian: number;
  readonly ratioMedian: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
  /** Rounds in which this side's figure was the lower. */
  readonly thisLower: number;
}

/** One pair of clusters: the median of its rounds' ratios this / other, per figure. */
export interface AbPairSummary {
  readonly pair: number;
  readonly rounds: number;
  readonly opsPerSec: number;
  readonly n0UsPerOp: number;
  readonly replicasUsPerOp: number;
}

export interface AbWorkloadSummary {
  readonly workload: string;
  readonly rounds: number;
  readonly opsPerSec: PairedFigure;
  readonly n0UsPerOp: PairedFigure;
  readonly replicasUsPerOp: PairedFigure;
  /** Per pair of clusters, in pair order. */
  readonly byPair: readonly AbPairSummary[];
}

type Figure = 'opsPerSec' | 'n0UsPerOp' | 'replicasUsPerOp';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Per workload, in the order first seen; a round counts only when both sides have a sample in it. */
export function summarizeAb(samples: readonly AbSample[]): AbWorkloadSummary[] {
  const workloads = [...new Set(samples.map((s) => s.workload))];
  return workloads.map((workload) => {
    const pairs = roundPairs(samples.filter((s) => s.workload === workload));
    const figure = (name: Figure): PairedFigure => paired(pairs, name);
    return {
      workload,
      rounds: pairs.length,
      opsPerSec: figure('opsPerSec'),
      n0UsPerOp: figure('n0UsPerOp'),
      replicasUsPerOp: figure('replicasUsPerOp'),
      byPair: byClusterPair(pairs),
    };
  });
}

function byClusterPair(pairs: readonly [AbSample, AbSample][]): AbPairSummary[] {
  const ids = [...new Set(pairs.map(([mine]) => mine.pair))].sort((a, b) => a - b);
  return ids.map((pair) => {
    const mine = pairs.filter(([m]) => m.pair === pair);
    const ratio = (name: Figure): number => median(mine.map(([m, t]) => m[name] / t[name]));
    return {
      pair,
      rounds: mine.length,
      opsPerSec: ratio('opsPerSec'),
      n0UsPerOp: ratio('n0UsPerOp'),
      replicasUsPerOp: ratio('replicasUsPerOp'),
    };
  });
}

function roundPairs(samples: readonly AbSample[]): [AbSample, AbSample][] {
  const rounds = [...new Set(samples.map((s) => s.round))].sort((a, b) => a - b);
  const pairs: [AbSample, AbSample][] = [];
  for (const round of rounds) {
    const mine = samples.find((s) => s.round === round && s.side === 'this');
    const theirs = samples.find((s) => s.round === round && s.side === 'other');
    if (mine !== undefined && theirs !== undefined) pairs.push([mine, theirs]);
  }
  return pairs;
}

function paired(pairs: readonly [AbSample, AbSample][], name: Figure): PairedFigure {
  const ratios = pairs.map(([mine, theirs]) => mine[name] / theirs[name]);
  return {
    thisMedian: median(pairs.map(([mine]) => mine[name])),
    otherMedian: median(pairs.map(([, theirs]) => theirs[name])),
    ratioMedian: median(ratios),
    ratioMin: ratios.length === 0 ? Number.NaN : Math.min(...ratios),
    ratioMax: ratios.length === 0 ? Number.NaN : Math.max(...ratios),
    thisLower: pairs.filter(([mine, theirs]) => mine[name] < theirs[name]).length,
  };
}
