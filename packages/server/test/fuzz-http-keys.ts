/** Keys and path segments the HTTP fuzzing sends (fuzz-http.test.ts), the awkward ones made likely. */
import fc from 'fast-check';

/** Any string, with the awkward ones made likely. */
export const anyKey = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    '.',
    '..',
    '/',
    '%',
    '%2F',
    '\u0000',
    'a\u0000b',
    '?',
    '#',
    ' ',
    '\uD800',
    'a\uDFFFb',
    '\uFEFF',
  ),
  fc.string({ unit: 'binary-ascii', minLength: 1000, maxLength: 1100 }),
  fc.string({ unit: 'binary', minLength: 300, maxLength: 400 }),
);

/** A key as a path segment, percent-encoded the way it is (lone surrogates as the bytes of their UTF-16 unit). */
export function segmentOf(key: string): string {
  let out = '';
  for (const char of key) {
    const unit = char.charCodeAt(0);
    out +=
      char.length === 1 && unit >= 0xd800 && unit <= 0xdfff
        ? `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`
        : encodeURIComponent(char);
  }
  return out;
}

/** Path segments that are not the encoding of any string: raw bytes, broken escapes. */
export const oddSegment = fc.oneof(
  fc
    .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 30 })
    .map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom(
    '%',
    '%G0',
    '%e',
    'a%',
    '%%',
    '%00',
    '%C0%AF',
    '%ED%A0%80',
    '..%2F..',
    '%2e%2e',
    ';x=1',
    'a;b',
  ),
  fc.string({
    unit: fc.constantFrom(
      'a',
      '%',
      '/',
      '.',
      '~',
      '!',
      '$',
      '&',
      "'",
      '(',
      '*',
      '+',
      ',',
      ';',
      '=',
      ':',
      '@',
    ),
    maxLength: 20,
  }),
);
