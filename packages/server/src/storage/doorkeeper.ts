/**
 * The state cache's admission: a key is cached on its second read within a while, not its first
 * (TinyLFU's doorkeeper, 2Q's ghost list). A key read once among a million would otherwise evict
 * a hot one, and each such entry lives long enough to be promoted into V8's old generation before
 * it is evicted, so a cache that admits every read turns cold reads into old-generation garbage.
 *
 * It remembers the hashes of keys that missed once, in a fixed table (no allocation per read):
 * slot by hash, the hash itself as the tag. A collision forgets the older key; a false match (two
 * keys with one 32-bit hash in one slot) only admits a key early. Neither can make a read stale:
 * declining to cache is always safe.
 */

/** Slots per byte of the cache's bound: about four remembered misses per entry it can hold. */
const BYTES_PER_SLOT = 128;
const SLOTS_MIN = 1_024;
const SLOTS_MAX = 1 << 20;

export class Doorkeeper {
  private readonly tags: Uint32Array;
  private readonly mask: number;

  constructor(cacheBytesMax: number) {
    let slots = SLOTS_MIN;
    while (slots < SLOTS_MAX && slots * BYTES_PER_SLOT < cacheBytesMax) slots *= 2;
    this.tags = new Uint32Array(cacheBytesMax === 0 ? 1 : slots);
    this.mask = this.tags.length - 1;
  }

  /** True when the key with this 32-bit hash missed recently (it is then forgotten here). */
  admits(hash: number): boolean {
    const tag = (hash | 1) >>> 0;
    const slot = (hash >>> 1) & this.mask;
    if (this.tags[slot] === tag) {
      this.tags[slot] = 0;
      return true;
    }
    this.tags[slot] = tag;
    return false;
  }
}
