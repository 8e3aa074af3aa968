/**
 * Event-loop delay per node per phase: scrapes every node's /metrics when the measured time begins
 * and when it ends, and takes quantiles of the difference of the two delay histograms.
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

export class LoopDelayProbe {
  private readonly urls = new Map<string, string>();
  private readonly start = new Map<string, Buckets>();

  watch(name: string, url: string): void {
    this.urls.set(name, url);
  }

  /** The measured time begins. */
  async begin(): Promise<void> {
    this.start.clear();
    const scraped = await this.scrapeAll();
    for (const [name, buckets] of scraped) this.start.set(name, buckets);
  }

  /** Per node since begin(); nodes that did not answer both times are left out. */
  async end(): Promise<Record<string, LoopDelayStats>> {
    const out: Record<string, LoopDelayStats> = {};
    for (const [name, after] of await this.scrapeAll()) {
      const before = this.start.get(name);
      const stats = before === undefined ? undefined : loopDelayStats(before, after);
      if (stats !== undefined) out[name] = stats;
    }
    return out;
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
