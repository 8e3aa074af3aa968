/**
 * Hashing without Node APIs (core runs in browsers): MurmurHash3 x86 32-bit over UTF-8 bytes.
 * Used to place keys on the ring and to checksum contexts; not a cryptographic hash.
 */

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function murmur3(bytes: Uint8Array, seed = 0): number {
  return murmurBytes(bytes, bytes.length, seed >>> 0, 0)[0];
}

/**
 * `murmur3(utf8(text), seed)` without allocating: the text is encoded into a scratch buffer
 * (TextEncoder's `encodeInto`, native) and hashed from there. Each request hashes its key and
 * context several times (ring, Merkle bucket and pair, context checksum); a loop over char codes
 * took 4-5 times as long. Lone surrogates hash as U+FFFD, as TextEncoder encodes them.
 */
export function murmur3Text(text: string, seed = 0): number {
  const bytes = encoded(text);
  return murmurBytes(bytes.buffer, bytes.length, seed >>> 0, 0)[0];
}

/** `[murmur3Text(text, seedA), murmur3Text(text, seedB)]` in one pass over the bytes. */
export function murmur3TextPair(text: string, seedA: number, seedB: number): readonly [number, number] {
  const bytes = encoded(text);
  return murmurBytes(bytes.buffer, bytes.length, seedA >>> 0, seedB >>> 0);
}

/** Texts up to this many UTF-16 units are encoded into the shared scratch buffer. */
const SCRATCH_CHARS = 4096;
/** UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units). */
let scratch = new Uint8Array(256);

/** The UTF-8 of `text` in a buffer valid until the next call, and its length. */
function encoded(text: string): { buffer: Uint8Array; length: number } {
  const bytesMax = text.length * 3;
  if (bytesMax > SCRATCH_CHARS * 3) {
    const bytes = encoder.encode(text);
    return { buffer: bytes, length: bytes.length };
  }
  if (scratch.length < bytesMax) scratch = new Uint8Array(SCRATCH_CHARS * 3);
  return { buffer: scratch, length: encoder.encodeInto(text, scratch).written };
}

/**
 * MurmurHash3 x86 32-bit of the first `length` bytes, with two seeds at once (the blocks are read
 * once; hashing with one seed ignores the second result).
 */
function murmurBytes(bytes: Uint8Array, length: number, seedA: number, seedB: number): [number, number] {
  let ha = seedA;
  let hb = seedB;
  const blocks = length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    const k = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
    ha = mixBlock(ha, k);
    hb = mixBlock(hb, k);
  }
  let tail = 0;
  for (let i = length - 1; i >= blocks << 2; i--) tail = (tail << 8) | bytes[i]!;
  return [finish(ha, tail, length), finish(hb, tail, length)];
}

/** One 4-byte block `k` (little-endian) mixed into `h`. */
function mixBlock(h0: number, k0: number): number {
  let k = Math.imul(k0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h = h0 ^ k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** The tail block (the bytes left in `k`) and the final mix. */
function finish(h0: number, k0: number, length: number): number {
  let h = h0;
  if ((length & 3) !== 0) {
    let k = Math.imul(k0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The seed of `keyPosition`. */
export const RING_POSITION_SEED = 0;

/** The position of a key on the ring: an unsigned 32-bit integer. */
export function keyPosition(key: string): number {
  return murmur3Text(key, RING_POSITION_SEED);
}

/** A 64-bit checksum as 16 hex characters (two seeded 32-bit hashes). */
export function checksum64(bytes: Uint8Array): string {
  const [hi, lo] = murmurBytes(bytes, bytes.length, CHECKSUM_SEED_HI, CHECKSUM_SEED_LO);
  return hex32(hi) + hex32(lo);
}

/** `checksum64(utf8(text))` without building the bytes. */
export function checksum64Text(text: string): string {
  const [hi, lo] = murmur3TextPair(text, CHECKSUM_SEED_HI, CHECKSUM_SEED_LO);
  return hex32(hi) + hex32(lo);
}

const CHECKSUM_SEED_HI = 0x9747b28c;
const CHECKSUM_SEED_LO = 0x5bd1e995;

/** The 256 bytes as two lowercase hex characters each. */
const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * An unsigned 32-bit integer as 8 lowercase hex characters: four table lookups, 3-5 times faster
 * than `toString(16).padStart(8, '0')` (every checksum and state digest makes two).
 */
export function hex32(n: number): string {
  return (
    HEX_BYTES[(n >>> 24) & 0xff]! +
    HEX_BYTES[(n >>> 16) & 0xff]! +
    HEX_BYTES[(n >>> 8) & 0xff]! +
    HEX_BYTES[n & 0xff]!
  );
}
