/**
 * Storage keys: their order and which strings may be keys. Engines store keys as UTF-8, so the
 * order every engine iterates in is UTF-8 byte order, which equals Unicode code point order.
 * A lone surrogate has no UTF-8 form (it would silently become U+FFFD and collide with other
 * keys), so such strings are refused.
 */

const LONE_SURROGATE = /\p{Surrogate}/u;

/** True when `key` is well-formed Unicode and so survives a round trip through UTF-8. */
export function isStorableKey(key: string): boolean {
  return !LONE_SURROGATE.test(key);
}

/**
 * Compares two well-formed strings in code point order (= UTF-8 byte order). JavaScript's `<`
 * compares UTF-16 code units, which disagrees for characters U+E000..U+FFFF against characters
 * above U+FFFF; moving surrogates above U+E000..U+FFFF fixes that without decoding.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
