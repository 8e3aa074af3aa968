/** Scraped families of the cache of recent states (storage/state-cache.ts). */
import type { Registry } from 'prom-client';
import type { StateCacheStats } from '../storage/state-cache.js';
import { scrapedCounter, scrapedGauge } from './metrics-scrape.js';

/** Hits, misses, evictions and size of the state cache, read at scrape time. */
export function registerStateCacheMetrics(registry: Registry, stats: () => StateCacheStats): void {
  scrapedCounter(
    registry,
    'tessera_state_cache_hits_total',
    'Reads of a key state (gets, peer reads, the read before every write or merge) answered from memory.',
    [],
    (set) => set({}, stats().hits),
  );
  scrapedCounter(
    registry,
    'tessera_state_cache_misses_total',
    'Reads of a key state not in the cache: answered by the storage engine, or as absent by the key filter.',
    [],
    (set) => set({}, stats().misses),
  );
  scrapedCounter(
    registry,
    'tessera_state_cache_evictions_total',
    'Cached key states evicted, least recently used first, to stay within stateCacheBytesMax.',
    [],
    (set) => set({}, stats().evictions),
  );
  scrapedGauge(
    registry,
    'tessera_state_cache_bytes',
    'Estimated memory held by the state cache (keys, states, bookkeeping).',
    [],
    (g) => g.set(stats().bytes),
  );
  scrapedGauge(
    registry,
    'tessera_state_cache_bytes_max',
    'The state cache bound (stateCacheBytesMax); 0 when the cache is off.',
    [],
    (g) => g.set(stats().bytesMax),
  );
  scrapedGauge(registry, 'tessera_state_cache_entries', 'Key states in the state cache.', [], (g) =>
    g.set(stats().entries),
  );
}
