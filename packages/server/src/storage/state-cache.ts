/**
 * Memory-first reads: a bounded, write-through cache of keys' stored states on this node (the
 * cooperative object cache's first level, applied to a Dynamo replica). A hot key's read, and a
 * replica's read before every merge, skip the engine (a LevelDB thread-pool trip) and, once the
 * entry has been decoded, the decode.
 *
 * Per user key it holds the encoded state as stored (or that the key is absent) and, after its
 * first use, that state decoded and deep-frozen. The decoded state's values are views into the
 * cached bytes: like every decoded state they are read-only by convention (no code writes into a
 * value's bytes); everything else in it is frozen. Reads fill it, from a key's second read on
 * (doorkeeper.ts: a scan of keys read once would otherwise evict the hot ones); writes update only
 * keys it holds (a load of fresh keys nobody reads would otherwise do the same). Entries are evicted
 * oldest first, with a second chance for those read since (CLOCK), when their estimated size
 * passes `bytesMax`; 0 turns the cache off. Once full, only one in `FULL_ADMIT_EVERY` of the keys
 * the doorkeeper admits is cached: each admission then evicts an entry that has usually lived long
 * enough to reach V8's old generation, so a full cache that admits every second read turns its
 * hot set's fringe into old-generation garbage (about 620 entries a second under C at 11,100 gets
 * a second, the largest source of the coordinator's major collections: docs/benchmarks.md,
 * "Issue 18, twenty-third round").
 *
 * Never older than the engine: ReplicaStore updates an entry only under the key's lock, after the
 * engine write committed (`stored`), and drops it when a write fails (`invalidate`). A read that
 * misses fills the entry only if no write to the key completed while it read the engine (the
 * engine may have answered with the state before that write).
 */
import { type KeyState, murmur3Text } from '@tessera/core';
import { Doorkeeper } from './doorkeeper.js';

export interface CachedState {
  /** The state's bytes as stored; undefined when the key is absent. */
  readonly bytes: Uint8Array | undefined;
  /** `bytes` decoded and frozen, once a read needed it. */
  state?: KeyState;
}

export interface StateCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  readonly entries: number;
  /** Estimated memory held (keys, bytes, decoded states, bookkeeping). */
  readonly bytes: number;
  readonly bytesMax: number;
}

/**
 * Estimated memory per entry beyond its key and bytes: Map slot, entry, typed array and its own
 * buffer, and the heap headroom the collector keeps (RSS measured with 10,000 to 100,000 keys).
 */
export const ENTRY_OVERHEAD_BYTES = 400;

/**
 * When the cache is full, one in this many of the doorkeeper's admissions is cached (a count, not a
 * chance: no randomness to inject). Keys read more often pass the doorkeeper more often, so the
 * sample favours them; a new hot set still takes over, about this many times more slowly. 8 cut
 * evictions by nine tenths under C with the hit ratio up a point; 16 and 32 gained nothing more.
 */
export const FULL_ADMIT_EVERY = 8;

interface Entry extends CachedState {
  size: number;
  /** Read since eviction last passed it: it gets a second chance. */
  used: boolean;
}

/** Reads of one key from the engine in flight; `stale` once a write to the key completed. */
interface Fill {
  readers: number;
  stale: boolean;
}

export class StateCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fills = new Map<string, Fill>();
  private readonly door: Doorkeeper;
  private size = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;
  /** The doorkeeper's admissions while the cache was full (see `FULL_ADMIT_EVERY`). */
  private admittedWhenFull = 0;

  constructor(readonly bytesMax: number) {
    if (!Number.isSafeInteger(bytesMax) || bytesMax < 0)
      throw new RangeError(`stateCacheBytesMax must be a whole number >= 0, not ${bytesMax}.`);
    this.door = new Doorkeeper(bytesMax);
  }

  /**
   * The key's cached state, or what `read` answers (cached, when `fill`, if no write to the key
   * completed meanwhile: writers read with `fill` false, readers fill). A returned entry is never changed afterwards except to attach its decoded state.
   */
  async load(key: string, read: () => Promise<Uint8Array | undefined>, fill = true): Promise<CachedState> {
    if (this.bytesMax === 0) return { bytes: await read() };
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      // Second chance (CLOCK): a hit only marks the entry. Re-inserting it on every hit, for exact
      // LRU order, cost about 5 µs per read in a Map of 100,000 keys (measured: docs/benchmarks.md).
      hit.used = true;
      return hit;
    }
    this.misses++;
    if (!fill || !this.admits(key)) return { bytes: await read() };
    const filling = this.beginFill(key);
    try {
      const bytes = await read();
      if (filling.stale) return { bytes };
      return this.put(key, bytes);
    } finally {
      this.endFill(key, filling);
    }
  }

  /**
   * The key's cached entry without waiting (counted as a hit), or undefined when it is not cached
   * (nothing counted: the caller's `load` counts the miss, or `absent` does).
   */
  cached(key: string): CachedState | undefined {
    const hit = this.bytesMax === 0 ? undefined : this.entries.get(key);
    if (hit === undefined) return undefined;
    this.hits++;
    hit.used = true;
    return hit;
  }

  /** Counts a miss that needed no engine read (the key is certainly absent). */
  absent(): void {
    if (this.bytesMax !== 0) this.misses++;
  }

  /**
   * After the engine committed the key's new state (undefined: deleted); under the key's lock. A
   * cached key is updated; one not cached stays out (writes of keys nobody reads, such as a load
   * of fresh keys, would only evict the keys that are read).
   */
  stored(key: string, bytes: Uint8Array | undefined): void {
    if (this.bytesMax === 0) return;
    this.staleFills(key);
    if (this.entries.has(key)) this.put(key, bytes);
  }

  /** The key's state is unknown here (a write failed, or the engine changed behind the cache). */
  invalidate(key: string): void {
    if (this.bytesMax === 0) return;
    this.staleFills(key);
    this.remove(key);
  }

  /** Forgets everything (the engine's data changed wholesale). */
  clear(): void {
    for (const fill of this.fills.values()) fill.stale = true;
    this.fills.clear();
    this.entries.clear();
    this.size = 0;
  }

  /** Keeps `state`, decoded from `entry.bytes`, frozen with the entry if the entry is still cached. */
  decoded(key: string, entry: CachedState, state: KeyState): KeyState {
    const held = this.entries.get(key);
    if (held !== entry) return state;
    if (held.state !== undefined) return held.state;
    held.state = deepFreeze(state);
    const extra = decodedSize(state);
    held.size += extra;
    this.size += extra;
    this.evict();
    return state;
  }

  stats(): StateCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      entries: this.entries.size,
      bytes: this.size,
      bytesMax: this.bytesMax,
    };
  }

  /** Whether a read that missed may fill the key's entry (doorkeeper.ts, then `FULL_ADMIT_EVERY`). */
  private admits(key: string): boolean {
    if (!this.door.admits(murmur3Text(key))) return false;
    // Full: one more entry of the average size would evict another (entries grow when decoded,
    // so a full cache sits below its bound by up to an entry's decoded state).
    const n = this.entries.size;
    if (n === 0 || this.size + this.size / n <= this.bytesMax) return true;
    return ++this.admittedWhenFull % FULL_ADMIT_EVERY === 0;
  }

  private put(key: string, given: Uint8Array | undefined): CachedState {
    this.remove(key);
    const size = 2 * key.length + (given?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
    if (size > this.bytesMax) return { bytes: given };
    // Held in a buffer of its own: `given` may be a view into a larger one (Node's 8 KiB pool, a
    // peer's batch, a LevelDB read), which a cached view would keep alive whole.
    const bytes = given === undefined ? undefined : new Uint8Array(given);
    const entry: Entry = { bytes, size, used: false };
    this.entries.set(key, entry);
    this.size += size;
    this.evict();
    return entry;
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.size -= old.size;
  }

  /**
   * Evicts from the oldest end until within bounds; an entry read since it was last passed moves to
   * the young end instead, once (second chance), so hot keys stay and each pass is bounded.
   */
  private evict(): void {
    let passes = this.entries.size;
    for (const [key, entry] of this.entries) {
      if (this.size <= this.bytesMax) return;
      if (entry.used && passes-- > 0) {
        entry.used = false;
        this.entries.delete(key);
        this.entries.set(key, entry);
        continue;
      }
      this.remove(key);
      this.evictions++;
    }
  }

  private beginFill(key: string): Fill {
    let fill = this.fills.get(key);
    if (fill === undefined) {
      fill = { readers: 0, stale: false };
      this.fills.set(key, fill);
    }
    fill.readers++;
    return fill;
  }

  private endFill(key: string, fill: Fill): void {
    fill.readers--;
    if (fill.readers === 0 && this.fills.get(key) === fill) this.fills.delete(key);
  }

  /** Reads in flight may have seen the state before this write: they must not fill. */
  private staleFills(key: string): void {
    const fill = this.fills.get(key);
    if (fill === undefined) return;
    fill.stale = true;
    this.fills.delete(key);
  }
}

/**
 * Estimated memory a decoded state brings: its objects (value bytes are views into the entry's),
 * and what a coordinator keeps for it while it is cached: the context it issued for it and, for a
 * key read again, its rendered response body (a copy of its values). Estimated from n0's heap
 * with a million keys, where 160 + 112 per clock entry + 320 per sibling counted a third of it.
 */
function decodedSize(state: KeyState): number {
  let values = 0;
  for (const s of state.siblings) values += s.value.length;
  return 900 + 112 * state.vv.length + 480 * state.siblings.length + values;
}

function deepFreeze(state: KeyState): KeyState {
  for (const e of state.vv) Object.freeze(e);
  for (const s of state.siblings) {
    Object.freeze(s.dot);
    Object.freeze(s);
  }
  Object.freeze(state.vv);
  Object.freeze(state.siblings);
  return Object.freeze(state);
}
