/**
 * Hashing without Node APIs (core runs in browsers): MurmurHash3 x86 32-bit over UTF-8 bytes.
 * Used to place keys on the ring and to checksum contexts; not a cryptographic hash.
 */

const encoder = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function murmur3(bytes: Uint8Array, seed = 0): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = bytes.length >>> 2;
  for (let i = 0; i < blocks; i++) {
    const o = i << 2;
    let k = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks << 2;
  const rem = bytes.length & 3;
  if (rem > 0) {
    let k = 0;
    if (rem === 3) k ^= bytes[tail + 2]! << 16;
    if (rem >= 2) k ^= bytes[tail + 1]! << 8;
    k ^= bytes[tail]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The position of a key on the ring: an unsigned 32-bit integer. */
export function keyPosition(key: string): number {
  return murmur3(utf8(key));
}

/** A 64-bit checksum as 16 hex characters (two seeded 32-bit hashes). */
export function checksum64(bytes: Uint8Array): string {
  return hex32(murmur3(bytes, 0x9747b28c)) + hex32(murmur3(bytes, 0x5bd1e995));
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}
