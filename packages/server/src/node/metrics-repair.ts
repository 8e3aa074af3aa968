/** Scraped families of anti-entropy and storage. */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge } from './metrics-scrape.js';

export interface PartitionSyncView {
  readonly lastExchangeMs?: number;
  readonly lastOutcome?: string;
  /** Per other replica: when the last exchange that ended in sync with it started. */
  readonly inSyncMs: Readonly<Record<string, number>>;
}

export interface AntiEntropySources {
  readonly stats: () => {
    exchanges: Readonly<Record<string, number>>;
    keysPulled: number;
    keysPushed: number;
    keysFailed: number;
    bytesSent: number;
    bytesReceived: number;
    tombstonesCollected: number;
    treesHeld: number;
    partitions: readonly PartitionSyncView[];
  };
  readonly now: () => number;
}

/** Anti-entropy (Merkle exchanges) and tombstone collection, read at scrape time. */
export function registerAntiEntropyMetrics(registry: Registry, src: AntiEntropySources): void {
  scrapedCounter(
    registry,
    'tessera_anti_entropy_exchanges_total',
    'Merkle exchanges this node started, by outcome.',
    ['outcome'],
    (set) => {
      for (const [outcome, n] of Object.entries(src.stats().exchanges)) set({ outcome }, n);
    },
  );
  scrapedCounter(
    registry,
    'tessera_anti_entropy_keys_total',
    'Keys repaired by anti-entropy: pulled from a peer or pushed to it.',
    ['direction'],
    (set) => {
      const s = src.stats();
      set({ direction: 'pulled' }, s.keysPulled);
      set({ direction: 'pushed' }, s.keysPushed);
    },
  );
  scrapedCounter(
    registry,
    'tessera_anti_entropy_keys_failed_total',
    'Differing keys anti-entropy could not repair (a state too large for one message, or refused as invalid) and skipped; each exchange with one logs a warning naming it.',
    [],
    (set) => set({}, src.stats().keysFailed),
  );
  scrapedCounter(
    registry,
    'tessera_anti_entropy_bytes_total',
    'State bytes moved by anti-entropy, sent or received.',
    ['direction'],
    (set) => {
      const s = src.stats();
      set({ direction: 'sent' }, s.bytesSent);
      set({ direction: 'received' }, s.bytesReceived);
    },
  );
  scrapedCounter(
    registry,
    'tessera_tombstones_collected_total',
    'Tombstones removed for good once every replica had them and the grace period passed.',
    [],
    (set) => set({}, src.stats().tombstonesCollected),
  );
  scrapedGauge(
    registry,
    'tessera_merkle_trees_held',
    'Partition Merkle trees held in memory (8,456 bytes each).',
    [],
    (g) => g.set(src.stats().treesHeld),
  );
  scrapedGauge(
    registry,
    'tessera_anti_entropy_oldest_sync_age_seconds',
    'Over the partitions this node replicates: the longest time since one last ended an exchange in sync with another replica (or, alone, was last visited); counted from start for one never synced.',
    [],
    (g) => {
      const now = src.now();
      let oldest = now;
      for (const p of src.stats().partitions) oldest = Math.min(oldest, lastSyncMs(p) ?? START_MS);
      g.set(Math.max(0, (now - oldest) / 1000));
    },
  );
}

function lastSyncMs(p: PartitionSyncView): number | undefined {
  if (p.lastOutcome === 'solo') return p.lastExchangeMs;
  const times = Object.values(p.inSyncMs);
  return times.length === 0 ? undefined : Math.max(...times);
}

const START_MS = Date.now();

/** Storage on disk, read at scrape time: a listing of the data dir (no scan of the keys). */
export function registerStorageMetrics(registry: Registry, dataDir: string | undefined): void {
  scrapedGauge(
    registry,
    'tessera_storage_disk_bytes',
    'Bytes of the files in the data directory (the LevelDB data, hints and metadata); 0 with storage memory.',
    [],
    async (g) => g.set(dataDir === undefined ? 0 : await directoryBytes(dataDir)),
  );
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(path);
    else if (e.isFile())
      total += await stat(path).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
