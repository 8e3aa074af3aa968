/**
 * Admission control for background work (paper 6.5): handoff, anti-entropy and transfers draw
 * tokens from a bucket whose refill rate adapts to foreground latency. Each window, if the slowest
 * recent foreground requests (an approximate p99) exceeded the target, the rate halves; otherwise
 * it grows back by a tenth of the maximum. Work that finds no token is deferred, and counted.
 */

export type BackgroundKind = 'anti-entropy' | 'handoff' | 'transfer' | 'listing';

export interface BackgroundGate {
  /** True if `cost` units of background work of `kind` may run now. */
  tryAcquire(cost: number, kind: BackgroundKind): boolean;
}

export interface AdmissionOptions {
  /** Background units per second when the foreground is fast. */
  readonly rateMaxPerSec: number;
  /** The rate never drops below this, so background work always progresses. */
  readonly rateMinPerSec: number;
  /** Foreground p99 above this slows background work down. */
  readonly latencyTargetMs: number;
  readonly windowMs: number;
  readonly now: () => number;
}

export interface AdmissionStats {
  readonly ratePerSec: number;
  readonly foregroundP99Ms: number;
  readonly ran: Record<BackgroundKind, number>;
  readonly deferred: Record<BackgroundKind, number>;
}

const SAMPLES_MAX = 1024;

export class AdmissionController implements BackgroundGate {
  private rate: number;
  private tokens: number;
  private lastRefillMs: number;
  private windowStartMs: number;
  private samples: number[] = [];
  private lastP99Ms = 0;
  private readonly ran: Record<BackgroundKind, number> = {
    'anti-entropy': 0,
    handoff: 0,
    transfer: 0,
    listing: 0,
  };
  private readonly deferred: Record<BackgroundKind, number> = {
    'anti-entropy': 0,
    handoff: 0,
    transfer: 0,
    listing: 0,
  };

  constructor(private readonly options: AdmissionOptions) {
    this.rate = options.rateMaxPerSec;
    this.tokens = options.rateMaxPerSec;
    this.lastRefillMs = options.now();
    this.windowStartMs = options.now();
  }

  /** Called for every foreground request with its latency. */
  recordForeground(latencyMs: number): void {
    if (this.samples.length < SAMPLES_MAX) this.samples.push(latencyMs);
    else this.samples[Math.floor(Math.random() * SAMPLES_MAX)] = latencyMs;
  }

  tryAcquire(cost: number, kind: BackgroundKind): boolean {
    this.tick();
    if (this.tokens < cost) {
      this.deferred[kind] += cost;
      return false;
    }
    this.tokens -= cost;
    this.ran[kind] += cost;
    return true;
  }

  stats(): AdmissionStats {
    this.tick();
    return {
      ratePerSec: this.rate,
      foregroundP99Ms: this.lastP99Ms,
      ran: { ...this.ran },
      deferred: { ...this.deferred },
    };
  }

  private tick(): void {
    const now = this.options.now();
    if (now - this.windowStartMs >= this.options.windowMs) this.adapt(now);
    const elapsedMs = Math.max(0, now - this.lastRefillMs);
    this.tokens = Math.min(this.rate, this.tokens + (elapsedMs * this.rate) / 1000);
    this.lastRefillMs = now;
  }

  private adapt(now: number): void {
    const { rateMaxPerSec, rateMinPerSec, latencyTargetMs } = this.options;
    this.lastP99Ms = percentile99(this.samples);
    this.rate =
      this.lastP99Ms > latencyTargetMs
        ? Math.max(rateMinPerSec, this.rate / 2)
        : Math.min(rateMaxPerSec, this.rate + rateMaxPerSec / 10);
    this.samples = [];
    this.windowStartMs = now;
  }
}

function percentile99(samples: readonly number[]): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}
