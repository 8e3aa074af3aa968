/**
 * Hashing without Node APIs (core runs in browsers): MurmurHash3 x86 32-bit over UTF-8 bytes.
 * Used to place keys on the ring and to checksum contexts; not a cryptographic hash.
 */

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function murmur3(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const blocks = bytes.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    h = mixBlock(h, bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24));
  }
  let tail = 0;
  for (let i = bytes.length - 1; i >= blocks << 2; i--) tail = (tail << 8) | bytes[i]!;
  return finish(h, tail, bytes.length);
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

/**
 * `murmur3(utf8(text), seed)` without building the bytes: each request hashes its key several
 * times (ring, Merkle bucket, context seal), and TextEncoder's allocation was 4-5% of a
 * coordinator's time under load. Lone surrogates hash as U+FFFD, as TextEncoder encodes them.
 */
export function murmur3Text(text: string, seed = 0): number {
  const h = { h: seed >>> 0, k: 0, n: 0 };
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      absorb(h, c);
      continue;
    }
    if (c < 0x800) {
      absorb(h, 0xc0 | (c >> 6));
      absorb(h, 0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        absorb(h, 0xf0 | (cp >> 18));
        absorb(h, 0x80 | ((cp >> 12) & 0x3f));
        absorb(h, 0x80 | ((cp >> 6) & 0x3f));
        absorb(h, 0x80 | (cp & 0x3f));
        continue;
      }
      c = 0xfffd;
    }
    absorb(h, 0xe0 | (c >> 12));
    absorb(h, 0x80 | ((c >> 6) & 0x3f));
    absorb(h, 0x80 | (c & 0x3f));
  }
  return finish(h.h, h.k, h.n);
}

interface Running {
  h: number;
  /** Bytes of the current 4-byte block so far, little-endian. */
  k: number;
  /** Bytes absorbed. */
  n: number;
}

function absorb(r: Running, byte: number): void {
  const shift = (r.n & 3) << 3;
  r.k |= byte << shift;
  r.n++;
  if ((r.n & 3) !== 0) return;
  r.h = mixBlock(r.h, r.k);
  r.k = 0;
}

/** The tail block (the bytes left in `k`) and the final mix, as in `murmur3`. */
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

/** The position of a key on the ring: an unsigned 32-bit integer. */
export function keyPosition(key: string): number {
  return murmur3Text(key);
}

/** A 64-bit checksum as 16 hex characters (two seeded 32-bit hashes). */
export function checksum64(bytes: Uint8Array): string {
  return hex32(murmur3(bytes, 0x9747b28c)) + hex32(murmur3(bytes, 0x5bd1e995));
}

/** `checksum64(utf8(text))` without building the bytes. */
export function checksum64Text(text: string): string {
  return hex32(murmur3Text(text, 0x9747b28c)) + hex32(murmur3Text(text, 0x5bd1e995));
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}
