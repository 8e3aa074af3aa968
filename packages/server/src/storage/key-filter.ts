/**
 * Which keys this replica's engine may hold, kept in memory (a growing Bloom filter, core
 * `BloomFilter`), so that the read before a write of a key the replica has never held, and a get
 * of such a key, skip the engine: for a fresh key that read is a whole trip to LevelDB's thread
 * pool (docs/benchmarks.md, issue 18's sixth round).
 *
 * Built once per open from a scan of every stored key; until the scan ends it answers "may hold"
 * for every key. Every write of a key adds it before the engine is asked to store it, whether the
 * scan has ended or not, so no moment exists at which the engine holds a key the filter denies:
 * keys stored before the scan began are in its scan, later ones were added by their writes.
 * Deletes leave their keys in the filter (a false "may hold" only costs a read); a restart drops
 * them. Nothing but ReplicaStore writes the 'data' namespace once the store is open.
 */
import { BloomFilter, type BloomFilterStats } from '@tessera/core';
import { keysOf } from './base-engine.js';
import type { StorageEngine } from './engine.js';

/** Default bound of the filter's memory (config `keyFilterBytesMax`): about 8 million keys. */
export const KEY_FILTER_BYTES_DEFAULT = 32 * 1024 * 1024;

/** What an operator reads when the filter stops answering (logged once per open). */
export function keyFilterSaturated(bytesMax: number): string {
  return (
    `The key filter needs more than keyFilterBytesMax (${bytesMax} bytes) for the keys this node ` +
    'stores and stopped answering: a write or get of a key the node never stored now reads the ' +
    'storage engine first (correct, but slower). Raise keyFilterBytesMax (about 4 bytes a key) and ' +
    'restart the node.'
  );
}

export interface KeyFilterStats extends BloomFilterStats {
  /** The scan of stored keys has ended: absent keys are now answered from memory. */
  readonly ready: boolean;
  /** Reads the filter answered "absent" without asking the engine. */
  readonly readsSkipped: number;
}

export class KeyFilter {
  private readonly filter: BloomFilter;
  private ready = false;
  private readsSkipped = 0;
  private told: boolean;

  /** `onSaturated` is called once, when the filter passes its bound and stops answering. */
  constructor(
    bytesMax: number,
    private readonly onSaturated: (stats: KeyFilterStats) => void = () => {},
  ) {
    this.filter = new BloomFilter(bytesMax);
    this.told = bytesMax === 0; // off by choice: nothing to tell
  }

  /**
   * Adds every key stored in the engine's 'data' namespace; then the filter answers. A failed scan
   * leaves it answering "may hold" for every key (and its failure is the caller's to report).
   */
  async build(engine: StorageEngine): Promise<void> {
    if (this.filter.saturated) return;
    for await (const keys of keysOf(engine, 'data')) {
      for (const key of keys) this.add(key);
      if (this.filter.saturated) return;
    }
    this.ready = true;
  }

  /** Before the engine is asked to store `dataKey`. */
  add(dataKey: string): void {
    this.filter.add(dataKey);
    if (this.filter.saturated && !this.told) {
      this.told = true;
      this.onSaturated(this.stats());
    }
  }

  /** False only when the engine certainly does not hold `dataKey`. */
  mayHold(dataKey: string): boolean {
    if (!this.ready || this.filter.mayHold(dataKey)) return true;
    this.readsSkipped++;
    return false;
  }

  stats(): KeyFilterStats {
    return { ...this.filter.stats(), ready: this.ready, readsSkipped: this.readsSkipped };
  }
}
