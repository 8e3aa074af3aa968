/** Metric families read from their sources at scrape time (node/metrics.ts serves them). */
import { Counter, Gauge, type Registry } from 'prom-client';

export type GaugeRead = (g: Gauge<string>) => void;

/** A gauge whose value is read from its source at every scrape. */
export function scrapedGauge(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: GaugeRead | ((g: Gauge<string>) => Promise<void>),
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      return read(this);
    },
  });
}

export type CounterRead = (set: (labels: Record<string, string>, total: number) => void) => void;

/** A counter whose total is read from its source at every scrape (a count kept by a component). */
export function scrapedCounter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: CounterRead,
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      read((labels, total) => this.inc(labels, total));
    },
  });
}
