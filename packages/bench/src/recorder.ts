/** Per-phase measurements: HDR latency histograms per operation kind, errors by code, siblings per read. */
import { build, type Histogram } from 'hdr-histogram-js';
import type { LatencySummary, OpStats, PhaseResult, ProcessStats, SiblingCounts } from './results.js';

/** What one operation ended with. */
export interface Outcome {
  /** Set when the operation failed: the API's error code, HTTP_<status>, or the transport's code. */
  readonly error?: string;
  /** True when the failure was the connection's, so the worker should pause before retrying. */
  readonly transport?: boolean;
  /** Siblings seen by the operation's read, if it read. */
  readonly siblings?: number;
}

/** 60 s: anything slower is clamped there (client deadlines are shorter). */
const LATENCY_MAX_US = 60_000_000;

function newHistogram(): Histogram {
  return build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: LATENCY_MAX_US,
    numberOfSignificantValueDigits: 3,
  });
}

export class PhaseRecorder {
  private readonly all = newHistogram();
  private readonly byOp = new Map<string, Histogram>();
  private readonly errors = new Map<string, number>();
  private readonly bySiblings: [number, number, number, number] = [0, 0, 0, 0];
  /** Live counters for the progress line, warmup included. */
  completedOps = 0;
  failedOps = 0;

  record(kind: string, latencyUs: number, outcome: Outcome, measured: boolean): void {
    this.completedOps++;
    if (outcome.error !== undefined) this.failedOps++;
    if (!measured) return;
    if (outcome.siblings !== undefined && outcome.siblings > 0) {
      const bucket = Math.min(outcome.siblings, 4) - 1;
      this.bySiblings[bucket] = (this.bySiblings[bucket] ?? 0) + 1;
    }
    if (outcome.error !== undefined) {
      this.errors.set(outcome.error, (this.errors.get(outcome.error) ?? 0) + 1);
      return;
    }
    const value = Math.min(Math.max(1, Math.round(latencyUs)), LATENCY_MAX_US);
    this.all.recordValue(value);
    let histogram = this.byOp.get(kind);
    if (histogram === undefined) {
      histogram = newHistogram();
      this.byOp.set(kind, histogram);
    }
    histogram.recordValue(value);
  }

  /** The p99 so far (measured operations only), for the progress line. */
  p99Ms(): number {
    return this.all.totalCount === 0 ? Number.NaN : this.all.getValueAtPercentile(99) / 1000;
  }

  summarize(
    head: Pick<PhaseResult, 'name' | 'system' | 'target'>,
    durationMs: number,
    processes: Readonly<Record<string, ProcessStats>>,
  ): PhaseResult {
    const seconds = durationMs / 1000;
    const stats = (h: Histogram): OpStats => ({
      ops: h.totalCount,
      opsPerSec: seconds > 0 ? h.totalCount / seconds : 0,
      latency: summarizeLatency(h),
    });
    const total = stats(this.all);
    const siblings: SiblingCounts = {
      reads: this.bySiblings.reduce((a, b) => a + b, 0),
      bySiblings: [...this.bySiblings],
    };
    const result: PhaseResult = {
      ...head,
      durationMs,
      ops: total.ops,
      opsPerSec: total.opsPerSec,
      latency: total.latency,
      byOp: Object.fromEntries([...this.byOp].map(([kind, h]) => [kind, stats(h)])),
      errors: Object.fromEntries(this.errors),
      siblings,
      processes,
    };
    this.destroy();
    return result;
  }

  private destroy(): void {
    this.all.destroy();
    for (const h of this.byOp.values()) h.destroy();
  }
}

function summarizeLatency(h: Histogram): LatencySummary {
  if (h.totalCount === 0) {
    return {
      count: 0,
      meanMs: Number.NaN,
      p50Ms: Number.NaN,
      p99Ms: Number.NaN,
      p999Ms: Number.NaN,
      maxMs: Number.NaN,
    };
  }
  return {
    count: h.totalCount,
    meanMs: h.mean / 1000,
    p50Ms: h.getValueAtPercentile(50) / 1000,
    p99Ms: h.getValueAtPercentile(99) / 1000,
    p999Ms: h.getValueAtPercentile(99.9) / 1000,
    maxMs: h.maxValue / 1000,
  };
}
