/**
 * Latency per time window (one second by default): for plots of a percentile over time, as the
 * paper's Figure 5. Percentiles are exact (nearest rank) over the window's samples; each window
 * keeps at most SAMPLES_PER_WINDOW_MAX samples (beyond that, the rest of the window only counts).
 */
export interface WindowStats {
  /** Seconds from the start of the measured time to the start of the window. */
  readonly startS: number;
  /** Successful operations that started in the window. */
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

export const SAMPLES_PER_WINDOW_MAX = 200_000;
/** A bound on the windows of one phase (an hour of one-second windows). */
export const WINDOWS_MAX = 3_600;

export class LatencyWindows {
  private readonly windows: number[][] = [];
  private readonly counts: number[] = [];

  constructor(readonly windowMs = 1_000) {
    if (!(windowMs > 0)) throw new RangeError(`window must be > 0 ms, got ${windowMs}`);
  }

  /** An operation that started `offsetMs` after the measured time began and took `latencyUs`. */
  record(offsetMs: number, latencyUs: number): void {
    const i = Math.floor(offsetMs / this.windowMs);
    if (i < 0 || i >= WINDOWS_MAX) return;
    while (this.windows.length <= i) {
      this.windows.push([]);
      this.counts.push(0);
    }
    this.counts[i]! += 1;
    const samples = this.windows[i]!;
    if (samples.length < SAMPLES_PER_WINDOW_MAX) samples.push(latencyUs);
  }

  summarize(): WindowStats[] {
    return this.windows.map((samples, i) => {
      const sorted = Float64Array.from(samples).sort();
      const at = (q: number): number =>
        sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]! / 1000;
      const sum = sorted.reduce((a, b) => a + b, 0);
      return {
        startS: (i * this.windowMs) / 1000,
        count: this.counts[i]!,
        meanMs: sorted.length === 0 ? Number.NaN : sum / sorted.length / 1000,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        p999Ms: at(0.999),
        maxMs: at(1),
      };
    });
  }
}
