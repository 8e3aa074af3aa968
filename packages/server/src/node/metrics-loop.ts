/**
 * Event-loop delay on /metrics. `tessera_event_loop_delay_seconds` is a histogram: a timer every
 * LOOP_SAMPLE_EVERY_MS records how late it fired (the time the loop was busy with something else),
 * so any window's quantiles come from the difference of two scrapes (`histogram_quantile` over a
 * `rate`, or `pnpm bench` per phase), and scrapers do not disturb each other.
 * `tessera_event_loop_delay_max_seconds` is the longest delay since the previous scrape, from the
 * same timer: one timer per process, since on a shared machine every wake-up of an idle process
 * costs CPU (about 100 µs here: docs/benchmarks.md, eighth round).
 */
import { Gauge, Histogram, type Registry } from 'prom-client';

/** How often the timer looks; a delay shorter than about a millisecond is timer noise. */
export const LOOP_SAMPLE_EVERY_MS = 10;

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
    help: `How late a timer due every ${LOOP_SAMPLE_EVERY_MS} ms fired: event-loop delay (a busy loop delays every request).`,
    buckets: LOOP_DELAY_BUCKETS,
    registers: [],
  });
  let dueMs = performance.now() + LOOP_SAMPLE_EVERY_MS;
  const timer = setInterval(() => {
    const nowMs = performance.now();
    const delayS = Math.max(0, nowMs - dueMs) / 1000;
    created.observe(delayS);
    if (delayS > maxSinceScrapeS) maxSinceScrapeS = delayS;
    dueMs = nowMs + LOOP_SAMPLE_EVERY_MS;
  }, LOOP_SAMPLE_EVERY_MS);
  timer.unref();
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
