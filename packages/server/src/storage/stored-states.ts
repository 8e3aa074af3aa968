/**
 * How ReplicaStore reads a key's stored state, memory first: the cache of recent states
 * (state-cache.ts), then the filter of stored keys (key-filter.ts: a key the engine certainly does
 * not hold reads as absent without asking it), then the engine. ReplicaStore tells it about each
 * write of the 'data' namespace, before (`writing`) and after (`written`, or `unknown` when the
 * write failed), always under the key's lock.
 */
import type { KeyState } from '@tessera/core';
import type { BatchOp, StorageEngine } from './engine.js';
import { KEY_FILTER_BYTES_DEFAULT, KeyFilter, type KeyFilterStats } from './key-filter.js';
import { type CachedState, StateCache, type StateCacheStats } from './state-cache.js';
import { decodeStored } from './stored-state.js';

/**
 * Default bound of the state cache (config `stateCacheBytesMax`): about 3,700 keys' states on a
 * coordinator, which also keeps their contexts and rendered bodies. Larger bounds buy a few percent
 * of gets and cost the memory target at a million keys (docs/benchmarks.md, second and twentieth rounds).
 */
export const STATE_CACHE_BYTES_DEFAULT = 8 * 1024 * 1024;

export interface StoredStatesOptions {
  /** Bound of the cache of recent states; 0 turns it off. */
  readonly stateCacheBytesMax?: number;
  /** Bound of the filter of stored keys; 0 turns it off. */
  readonly keyFilterBytesMax?: number;
  /** Called once per open when the filter passes its bound and stops answering. */
  readonly onKeyFilterSaturated?: (stats: KeyFilterStats) => void;
}

const ABSENT: Promise<undefined> = Promise.resolve(undefined);
/** A key the engine does not hold, as `loadNow` answers it (never decoded, so never changed). */
const NOT_STORED: CachedState = Object.freeze({ bytes: undefined });

export class StoredStates {
  private readonly cache: StateCache;
  /** Replaced at each open, when its scan begins; answers "may hold" for every key until it ends. */
  private filter: KeyFilter;
  private filterBuild: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: StorageEngine,
    private readonly options: StoredStatesOptions,
  ) {
    this.cache = new StateCache(options.stateCacheBytesMax ?? STATE_CACHE_BYTES_DEFAULT);
    this.filter = this.newFilter();
  }

  /**
   * Once the engine's data is what the node will serve (after a layout migration): forgets the
   * cache and starts the filter's scan, in the background. Until the scan ends the filter denies
   * nothing, and a failed scan leaves it so (the engine's failure shows in every other read).
   */
  open(): void {
    this.cache.clear();
    const filter = this.newFilter();
    this.filter = filter;
    this.filterBuild = filter.build(this.engine).catch(() => undefined);
  }

  /** Settles when the filter's scan has ended (or failed). */
  filterBuilt(): Promise<void> {
    return this.filterBuild;
  }

  /** The key's stored state from memory or the engine; `fill` lets a read (not a write's) fill the cache. */
  load(key: string, dataKey: string, fill: boolean): Promise<CachedState> {
    return this.cache.load(
      key,
      () => (this.filter.mayHold(dataKey) ? this.engine.get('data', dataKey) : ABSENT),
      fill,
    );
  }

  /**
   * A writer's `load` (it fills nothing) when memory answers: the cached entry, or the key's
   * absence when the filter says the engine certainly does not hold it; undefined when only the
   * engine can say (then call `load`). Saves a write to a fresh or cached key its trip through a promise.
   */
  loadNow(key: string, dataKey: string): CachedState | undefined {
    const hit = this.cache.cached(key);
    if (hit !== undefined) return hit;
    if (this.filter.mayHold(dataKey)) return undefined;
    this.cache.absent();
    return NOT_STORED;
  }

  /** `entry`'s state, decoded once and kept with the cached entry. */
  decoded(key: string, entry: CachedState): KeyState {
    return entry.state ?? this.cache.decoded(key, entry, decodeStored(key, entry.bytes!));
  }

  /** Before the engine is asked to apply `ops`: the keys they store are added to the filter. */
  writing(ops: readonly BatchOp[]): void {
    for (const op of ops) if (op.type === 'put' && op.ns === 'data') this.filter.add(op.key);
  }

  /** The engine committed the key's new state (undefined: deleted). */
  written(key: string, bytes: Uint8Array | undefined): void {
    this.cache.stored(key, bytes);
  }

  /** A write of the key failed: whether it was applied is unknown. */
  unknown(key: string): void {
    this.cache.invalidate(key);
  }

  cacheStats(): StateCacheStats {
    return this.cache.stats();
  }

  keyFilterStats(): KeyFilterStats {
    return this.filter.stats();
  }

  private newFilter(): KeyFilter {
    return new KeyFilter(
      this.options.keyFilterBytesMax ?? KEY_FILTER_BYTES_DEFAULT,
      this.options.onKeyFilterSaturated,
    );
  }
}
