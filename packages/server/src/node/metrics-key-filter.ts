/** Scraped families of the filter of stored keys (storage/key-filter.ts). */
import type { Registry } from 'prom-client';
import type { KeyFilterStats } from '../storage/key-filter.js';
import { scrapedCounter, scrapedGauge } from './metrics-scrape.js';

/** Reads the filter saved, its keys and memory, and whether it answers, read at scrape time. */
export function registerKeyFilterMetrics(registry: Registry, stats: () => KeyFilterStats): void {
  scrapedCounter(
    registry,
    'tessera_key_filter_reads_skipped_total',
    'Reads of a key state answered as absent from memory, without the storage engine: keys this node never stored.',
    [],
    (set) => set({}, stats().readsSkipped),
  );
  scrapedGauge(
    registry,
    'tessera_key_filter_ready',
    '1 when the key filter answers (its scan of the stored keys ended and it stayed within keyFilterBytesMax), else 0.',
    [],
    (g) => {
      const s = stats();
      g.set(s.ready && !s.saturated ? 1 : 0);
    },
  );
  scrapedGauge(
    registry,
    'tessera_key_filter_keys',
    'Keys added to the key filter since the node started.',
    [],
    (g) => g.set(stats().keys),
  );
  scrapedGauge(
    registry,
    'tessera_key_filter_bytes',
    "Memory held by the key filter's bits; its bound is keyFilterBytesMax.",
    [],
    (g) => g.set(stats().bytes),
  );
}
