/**
 * Event-loop delay per node per phase: scrapes every node's /metrics when the measured time begins
 * and when it ends, and takes quantiles of the difference of the two delay histograms. The
 * harness's own loop is measured too (as `bench`): a late harness makes every latency it measures
 * late, and this tells it apart from a late node.
 */
import {
  type Buckets,
  bucketQuantile,
  bucketsCount,
  bucketsDelta,
  LOOP_DELAY_FAMILY,
  parseHistogram,
} from './prom-text.js';

/** A node's event-loop delay over a stretch of time (a phase, a soak window). */
export interface LoopDelayStats {
  /** Delay observations (one per 10 ms the loop ran; fewer when it was blocked). */
  readonly samples: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

const SCRAPE_TIMEOUT_MS = 5_000;
/** A node's /metrics is tens of KB; anything far larger is not a Tessera node. */
const METRICS_BYTES_MAX = 4 * 1024 * 1024;

/** GET <url>/metrics as text; undefined when the node does not answer in time. */
export async function scrapeMetrics(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
    const text = await res.text();
    return res.ok && text.length <= METRICS_BYTES_MAX ? text : undefined;
  } catch {
    return undefined;
  }
}

/** p99, p99.9 and the highest bucket reached, from the delay observed between two scrapes. */
export function loopDelayStats(before: Buckets, after: Buckets): LoopDelayStats | undefined {
  const delta = bucketsDelta(before, after);
  if (delta === undefined || bucketsCount(delta) === 0) return undefined;
  return {
    samples: bucketsCount(delta),
    p99Ms: bucketQuantile(delta, 0.99) * 1000,
    p999Ms: bucketQuantile(delta, 0.999) * 1000,
  };
}

/** The harness's timer period, as the nodes' (server node/metrics-loop.ts). */
const SELF_EVERY_MS = 10;
/** At most this many of the harness's delays per phase (two hours at 10 ms). */
const SELF_SAMPLES_MAX = 720_000;

/** How late a timer due every 10 ms fires in this process, as the nodes measure their own. */
class OwnLoopDelay {
  private readonly delaysMs: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor() {
    let dueMs = performance.now() + SELF_EVERY_MS;
    this.timer = setInterval(() => {
      const nowMs = performance.now();
      if (this.delaysMs.length < SELF_SAMPLES_MAX) this.delaysMs.push(Math.max(0, nowMs - dueMs));
      dueMs = nowMs + SELF_EVERY_MS;
    }, SELF_EVERY_MS);
    this.timer.unref();
  }

  stop(): LoopDelayStats | undefined {
    clearInterval(this.timer);
    const sorted = this.delaysMs.sort((a, b) => a - b);
    if (sorted.length === 0) return undefined;
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { samples: sorted.length, p99Ms: at(0.99), p999Ms: at(0.999) };
  }
}

export class LoopDelayProbe {
  private readonly urls = new Map<string, string>();
  private readonly start = new Map<string, Buckets>();
  private self: OwnLoopDelay | undefined;

  /** `selfName`: the harness's own row in the process table. */
  constructor(private readonly selfName = 'bench') {}

  watch(name: string, url: string): void {
    this.urls.set(name, url);
  }

  /** The measured time begins. */
  async begin(): Promise<void> {
    this.start.clear();
    this.self?.stop();
    this.self = new OwnLoopDelay();
    const scraped = await this.scrapeAll();
    for (const [name, buckets] of scraped) this.start.set(name, buckets);
  }

  /** Per node since begin(); nodes that did not answer both times are left out. */
  async end(): Promise<Record<string, LoopDelayStats>> {
    const out: Record<string, LoopDelayStats> = {};
    const self = this.selfStats();
    if (self !== undefined) out[this.selfName] = self;
    for (const [name, after] of await this.scrapeAll()) {
      const before = this.start.get(name);
      const stats = before === undefined ? undefined : loopDelayStats(before, after);
      if (stats !== undefined) out[name] = stats;
    }
    return out;
  }

  private selfStats(): LoopDelayStats | undefined {
    const stats = this.self?.stop();
    this.self = undefined;
    return stats;
  }

  private async scrapeAll(): Promise<Map<string, Buckets>> {
    const entries = await Promise.all(
      [...this.urls].map(async ([name, url]) => {
        const text = await scrapeMetrics(url);
        return [name, text === undefined ? undefined : parseHistogram(text, LOOP_DELAY_FAMILY)] as const;
      }),
    );
    const out = new Map<string, Buckets>();
    for (const [name, buckets] of entries) if (buckets !== undefined) out.set(name, buckets);
    return out;
  }
}
