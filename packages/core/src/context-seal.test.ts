import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeContext } from './context.js';
import { sealContext, unsealContext } from './context-seal.js';
import { TesseraError } from './errors.js';
import { checksum64, utf8 } from './hash.js';

/** A stand-in keyed MAC (the server uses HMAC-SHA256): good enough to test the format. */
const macUnder = (secret: string) => (data: string) => checksum64(utf8(`${secret}|${data}`));
const mac = macUnder('s3cret');
const context = encodeContext('k', { vv: [{ node: 'n1', counter: 3, timestampMs: 0 }], dots: [] });

describe('sealed contexts', () => {
  it('unseal what seal made, for every key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (key) => {
        const inner = encodeContext(key, { vv: [{ node: 'n1', counter: 3, timestampMs: 0 }], dots: [] });
        expect(unsealContext(key, sealContext(key, inner, mac), mac)).toBe(inner);
      }),
    );
  });

  it('refuse an unsealed, forged, edited, foreign-key or foreign-cluster context', () => {
    const sealed = sealContext('k', context, mac);
    const forged = encodeContext('k', { vv: [{ node: 'n1', counter: 9_999, timestampMs: 0 }], dots: [] });
    const attempts = [
      context,
      `${forged}.${sealed.slice(sealed.lastIndexOf('.') + 1)}`,
      `${sealed.slice(0, -1)}x`,
      sealContext('other', context, mac),
      sealContext('k', context, macUnder('another-cluster')),
      '',
    ];
    for (const attempt of attempts) {
      let error: unknown;
      try {
        unsealContext('k', attempt, mac);
      } catch (err) {
        error = err;
      }
      expect(TesseraError.is(error) && error.code === 'INVALID_CONTEXT', attempt).toBe(true);
    }
  });
});
