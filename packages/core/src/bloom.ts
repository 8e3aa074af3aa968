/**
 * A Bloom filter that grows with what it holds (Almeida, Baquero, Preguiça and Hutchison,
 * "Scalable Bloom Filters", 2007): when its newest layer holds as many keys as it was sized for,
 * a layer twice as large with half the false-positive rate is added, so the whole filter's rate
 * stays under twice the first layer's however many keys come. A key is looked up in every layer.
 *
 * `mayHold` answering false is certain: the key was never added. True may be wrong (about 0.05%
 * of keys never added, at most about 0.1%, plus the hash collisions of `secondHash`). Memory is
 * bounded by `bytesMax`: a filter that would need more gives up (`saturated`), frees its layers
 * and answers true for every key, which is always safe; so does a filter with `bytesMax` 0.
 */
import { murmur3Text } from './hash.js';

export interface BloomFilterStats {
  /** Keys added (a key added twice, or that the filter already seemed to hold, counts once). */
  readonly keys: number;
  /** Memory held by the layers' bits. */
  readonly bytes: number;
  readonly bytesMax: number;
  /** It needed more than bytesMax and answers true for every key from then on. */
  readonly saturated: boolean;
}

/**
 * The first layer's size in keys, and its false-positive rate: low, because every false "may hold"
 * is a LevelDB get of an absent key, and LevelDB counts such gets against its newest table files
 * ("seek compaction"): at 1% a node taking fresh keys compacted every new level-0 file into level
 * 1 within seconds (docs/benchmarks.md, issue 18's seventh round).
 */
export const BLOOM_FIRST_LAYER_KEYS = 1 << 16;
const FIRST_LAYER_FALSE_POSITIVE = 0.0005;
/** Each layer's false-positive rate is this times the one before. */
const TIGHTENING = 0.5;
const SEED = 0x9747b28c;

interface Layer {
  readonly words: Uint32Array;
  /** Bits in `words`. */
  readonly size: number;
  /** Bits set per key. */
  readonly probes: number;
  readonly capacity: number;
  count: number;
}

export class BloomFilter {
  private layers: Layer[] = [];
  private keys = 0;
  private bytes = 0;
  private gaveUp: boolean;

  constructor(
    readonly bytesMax: number,
    private readonly firstLayerKeys = BLOOM_FIRST_LAYER_KEYS,
  ) {
    if (!Number.isSafeInteger(bytesMax) || bytesMax < 0)
      throw new RangeError(`A Bloom filter's bytesMax must be a whole number >= 0, not ${bytesMax}.`);
    if (!Number.isSafeInteger(firstLayerKeys) || firstLayerKeys < 1)
      throw new RangeError(`A Bloom filter's first layer must hold at least one key, not ${firstLayerKeys}.`);
    this.gaveUp = bytesMax === 0;
  }

  add(key: string): void {
    if (this.gaveUp) return;
    const h1 = murmur3Text(key, SEED);
    const h2 = secondHash(h1);
    if (this.holds(h1, h2)) return;
    let top = this.layers[this.layers.length - 1];
    if (top === undefined || top.count >= top.capacity) {
      top = this.grow();
      if (top === undefined) return;
    }
    for (let i = 0; i < top.probes; i++) setBit(top, probe(h1, h2, i, top.size));
    top.count++;
    this.keys++;
  }

  /** False only if `key` was never added. */
  mayHold(key: string): boolean {
    if (this.gaveUp) return true;
    const h1 = murmur3Text(key, SEED);
    return this.holds(h1, secondHash(h1));
  }

  stats(): BloomFilterStats {
    return { keys: this.keys, bytes: this.bytes, bytesMax: this.bytesMax, saturated: this.gaveUp };
  }

  /** It needed more than bytesMax (or bytesMax is 0): it answers true for every key. */
  get saturated(): boolean {
    return this.gaveUp;
  }

  private holds(h1: number, h2: number): boolean {
    for (const layer of this.layers) if (layerHolds(layer, h1, h2)) return true;
    return false;
  }

  /** The next layer, or undefined (and the filter saturated) when it would pass bytesMax. */
  private grow(): Layer | undefined {
    const n = this.layers.length;
    const capacity = this.firstLayerKeys * 2 ** n;
    const rate = FIRST_LAYER_FALSE_POSITIVE * TIGHTENING ** n;
    // The optimal size and probe count for `capacity` keys at `rate` (bits rounded to whole words).
    const words = Math.ceil((capacity * -Math.log(rate)) / (Math.LN2 * Math.LN2) / 32);
    if (this.bytes + 4 * words > this.bytesMax) {
      this.gaveUp = true;
      this.layers = [];
      this.bytes = 0;
      return undefined;
    }
    const layer: Layer = {
      words: new Uint32Array(words),
      size: 32 * words,
      probes: Math.ceil(-Math.log2(rate)),
      capacity,
      count: 0,
    };
    this.layers.push(layer);
    this.bytes += 4 * words;
    return layer;
  }
}

/**
 * The step of double hashing, mixed from the key's one hash (murmur3's finaliser): one pass over
 * the key, not two. Keys whose 32-bit hashes are equal share every bit, which adds about
 * keys / 2^32 to the false-positive rate (0.02% at a million keys).
 */
function secondHash(h1: number): number {
  let h = h1 ^ 0x5bd1e995;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h | 1) >>> 0;
}

/** The i-th bit of a key (double hashing: Kirsch and Mitzenmacher). */
function probe(h1: number, h2: number, i: number, size: number): number {
  return ((h1 + Math.imul(i, h2)) >>> 0) % size;
}

function layerHolds(layer: Layer, h1: number, h2: number): boolean {
  for (let i = 0; i < layer.probes; i++) {
    const bit = probe(h1, h2, i, layer.size);
    if ((layer.words[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

function setBit(layer: Layer, bit: number): void {
  layer.words[bit >>> 5]! |= 1 << (bit & 31);
}
