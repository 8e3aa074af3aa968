/**
 * Requests slower than a threshold, grouped by when they started. A p99.9 says how slow the tail
 * is, not what made it: late requests spread over the whole phase are queueing, while a few bursts
 * of hundreds each are stalls (a major collection on the coordinator, the three nodes' LevelDB
 * compactions at once: docs/benchmarks.md, twenty-second round). Each burst's time (seconds into
 * the measured time) can then be matched with what the nodes did then.
 */

/** Late above this (the half-load p99.9 target of issue 18). */
export const LATE_MS_DEFAULT = 10;
/** Late requests that started less than this apart belong to one burst. */
export const BURST_GAP_MS = 50;
/** Late requests remembered per phase; past this they are only counted. */
export const LATE_KEPT_MAX = 200_000;
/** Bursts named in a summary, the largest first. */
export const BURSTS_SHOWN = 5;

export interface LateBurst {
  /** Seconds from the start of the measured time to the burst's first late start. */
  readonly atS: number;
  /** From its first late start to its last. */
  readonly spanMs: number;
  readonly count: number;
  readonly maxMs: number;
}

export interface LateSummary {
  readonly thresholdMs: number;
  /** Successful measured operations slower than the threshold. */
  readonly count: number;
  /** `count` over all successful measured operations. */
  readonly share: number;
  /** Bursts among the remembered late requests (a lone late request is a burst of one). */
  readonly burstCount: number;
  /** The largest bursts, at most BURSTS_SHOWN, largest first. */
  readonly largest: readonly LateBurst[];
}

export class LateRequests {
  /** Start offsets (ms) and latencies (ms), in pairs: no object per late request. */
  private readonly kept: number[] = [];
  private count = 0;

  constructor(readonly thresholdMs = LATE_MS_DEFAULT) {
    if (!(thresholdMs > 0)) throw new RangeError(`late threshold must be > 0 ms, got ${thresholdMs}`);
  }

  /** A successful measured operation that started `offsetMs` into the measured time. */
  record(offsetMs: number, latencyMs: number): void {
    if (!(latencyMs > this.thresholdMs)) return;
    this.count++;
    if (this.kept.length < 2 * LATE_KEPT_MAX) this.kept.push(offsetMs, latencyMs);
  }

  /** Undefined when no operation was measured. */
  summarize(operations: number): LateSummary | undefined {
    if (operations <= 0) return undefined;
    const bursts = groupBursts(this.kept);
    return {
      thresholdMs: this.thresholdMs,
      count: this.count,
      share: this.count / operations,
      burstCount: bursts.length,
      largest: bursts.sort((a, b) => b.count - a.count || a.atS - b.atS).slice(0, BURSTS_SHOWN),
    };
  }
}

/** Bursts of `pairs` (start offset, latency; in any order), in order of time. */
export function groupBursts(pairs: readonly number[]): LateBurst[] {
  const order = Array.from({ length: pairs.length / 2 }, (_, i) => i).sort(
    (a, b) => pairs[2 * a]! - pairs[2 * b]!,
  );
  const bursts: LateBurst[] = [];
  let first = 0;
  let last = 0;
  let count = 0;
  let maxMs = 0;
  const close = (): void => {
    if (count > 0) bursts.push({ atS: first / 1000, spanMs: last - first, count, maxMs });
  };
  for (const i of order) {
    const at = pairs[2 * i]!;
    const ms = pairs[2 * i + 1]!;
    if (count > 0 && at - last >= BURST_GAP_MS) {
      close();
      count = 0;
      maxMs = 0;
    }
    if (count === 0) first = at;
    last = at;
    count++;
    maxMs = Math.max(maxMs, ms);
  }
  close();
  return bursts;
}
