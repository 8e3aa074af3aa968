/**
 * Event-loop delay on /metrics. `tessera_event_loop_delay_seconds` is a histogram: a timer records
 * how late it fired (the time the loop was busy with something else), so the quantiles of a window
 * come from the difference of two scrapes (`histogram_quantile` over a `rate`, or `pnpm bench` per
 * phase), and scrapers do not disturb each other. `tessera_event_loop_delay_max_seconds` is the
 * longest delay since the previous scrape, from the same timer.
 *
 * The timer looks every LOOP_SAMPLE_EVERY_MS while the loop is in use and backs off to
 * LOOP_SAMPLE_IDLE_EVERY_MS while it is nearly idle: on a shared machine every wake-up of an idle
 * process costs CPU (about 45-100 µs here: docs/benchmarks.md, eighth and ninth rounds), and at
 * 100 looks a second the timer was half of an idle node's CPU. One timer per process.
 */
import { performance } from 'node:perf_hooks';
import { Gauge, Histogram, type Registry } from 'prom-client';

/** How often the timer looks while the loop is in use; a delay under about a millisecond is timer noise. */
export const LOOP_SAMPLE_EVERY_MS = 10;
/** How often it looks at most while the loop is nearly idle; a stall this long or longer is always seen. */
export const LOOP_SAMPLE_IDLE_EVERY_MS = 100;
/** Below this share of busy time since its last look, the timer counts the loop as idle. */
const IDLE_UTILIZATION = 0.05;

/** The timer's next period: back to LOOP_SAMPLE_EVERY_MS once the loop is in use, doubled up to the idle period while it is not. */
export function nextSampleEveryMs(everyMs: number, utilization: number): number {
  if (utilization >= IDLE_UTILIZATION) return LOOP_SAMPLE_EVERY_MS;
  return Math.min(everyMs * 2, LOOP_SAMPLE_IDLE_EVERY_MS);
}

/** Fine up to 50 ms (where the latency targets live), then coarser up to 1 s. */
export const LOOP_DELAY_BUCKETS = [
  0.001, 0.002, 0.003, 0.004, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1,
  0.15, 0.2, 0.3, 0.5, 0.75, 1,
];

/** One sampler and one histogram per process (the event loop is the process's), shared by its nodes. */
let histogram: Histogram | undefined;
/** The longest delay since the last scrape (of any registry), in seconds. */
let maxSinceScrapeS = 0;

function loopHistogram(): Histogram {
  if (histogram !== undefined) return histogram;
  const created = new Histogram({
    name: 'tessera_event_loop_delay_seconds',
    help: `How late a timer due every ${LOOP_SAMPLE_EVERY_MS} ms (every ${LOOP_SAMPLE_IDLE_EVERY_MS} ms at most while the loop is idle) fired: event-loop delay (a busy loop delays every request).`,
    buckets: LOOP_DELAY_BUCKETS,
    registers: [],
  });
  let everyMs = LOOP_SAMPLE_EVERY_MS;
  let dueMs = performance.now() + everyMs;
  let usage = performance.eventLoopUtilization();
  const look = (): void => {
    const nowMs = performance.now();
    const delayS = Math.max(0, nowMs - dueMs) / 1000;
    created.observe(delayS);
    if (delayS > maxSinceScrapeS) maxSinceScrapeS = delayS;
    const next = performance.eventLoopUtilization();
    everyMs = nextSampleEveryMs(everyMs, performance.eventLoopUtilization(next, usage).utilization);
    usage = next;
    dueMs = nowMs + everyMs;
    setTimeout(look, everyMs).unref();
  };
  setTimeout(look, everyMs).unref();
  histogram = created;
  return created;
}

export function registerEventLoopDelay(registry: Registry): void {
  registry.registerMetric(loopHistogram());
  new Gauge({
    name: 'tessera_event_loop_delay_max_seconds',
    help: 'Longest event-loop delay since the previous scrape.',
    registers: [registry],
    collect() {
      this.set(maxSinceScrapeS);
      maxSinceScrapeS = 0;
    },
  });
}
