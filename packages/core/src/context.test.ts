import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VvEntry } from './clock.js';
import {
  type CausalContext,
  CONTEXT_CHARS_MAX,
  contextCoordinator,
  decodeContext,
  EMPTY_CONTEXT,
  encodeContext,
} from './context.js';
import { TesseraError } from './errors.js';
import { checksum64, utf8 } from './hash.js';

const keyArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
const nodeArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => s.length <= 128);
const counterArb = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

/** Entries with distinct nodes in ascending order, as the clock and the decoder require. */
const entriesArb = (maxLength: number) =>
  fc
    .uniqueArray(fc.record({ node: nodeArb, counter: counterArb }), { selector: (e) => e.node, maxLength })
    .map((es) => [...es].sort((x, y) => (x.node < y.node ? -1 : 1)));

const contextArb: fc.Arbitrary<CausalContext> = fc.record(
  {
    vv: entriesArb(8).map((es) => es.map((e): VvEntry => ({ ...e, timestampMs: 1234 }))),
    dots: entriesArb(2),
    coordinator: nodeArb,
  },
  { requiredKeys: ['vv', 'dots'] },
);

const pairs = (es: readonly { node: string; counter: number }[]) => es.map((e) => [e.node, e.counter]);

function base64url(text: string): string {
  let binary = '';
  for (const b of utf8(text)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The payload of an encoded context: the part its checksum signs, with the key. */
const payloadOf = (encoded: string): string => encoded.split('.')[1]!;

/** A context with a valid checksum around any payload, to reach the checks behind the checksum. */
const forge = (key: string, payload: string): string =>
  `c1.${payload}.${checksum64(utf8(`${key}\u0000${payload}`))}`;

/** Decodes, or throws exactly what a bad context must: INVALID_CONTEXT. */
function decodeOrInvalid(key: string, text: string): CausalContext | undefined {
  try {
    return decodeContext(key, text);
  } catch (err) {
    expect(err).toBeInstanceOf(TesseraError);
    expect((err as TesseraError).code).toBe('INVALID_CONTEXT');
    return undefined;
  }
}

/** Fast path for loops: true when `fn` throws INVALID_CONTEXT. */
function isInvalidContext(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch (err) {
    return err instanceof TesseraError && err.code === 'INVALID_CONTEXT';
  }
}

function expectInvalid(key: string, text: string): void {
  expect(decodeOrInvalid(key, text), `accepted ${JSON.stringify(text)}`).toBeUndefined();
}

describe('encodeContext / decodeContext', () => {
  it('round-trips nodes and counters of the vector and the dots', () => {
    fc.assert(
      fc.property(keyArb, contextArb, (key, ctx) => {
        const back = decodeContext(key, encodeContext(key, ctx));
        expect(pairs(back.vv)).toEqual(pairs(ctx.vv));
        expect(pairs(back.dots)).toEqual(pairs(ctx.dots));
        expect(back.coordinator).toBe(ctx.coordinator);
        expect(contextCoordinator(encodeContext(key, ctx))).toBe(ctx.coordinator);
        // A cluster that signs contexts appends a tag (context-seal.ts); the coordinator still reads.
        expect(contextCoordinator(`${encodeContext(key, ctx)}.c2lnbmVk`)).toBe(ctx.coordinator);
        expect(encodeContext(key, back)).toBe(encodeContext(key, ctx));
      }),
    );
    expect(contextCoordinator('not a context')).toBeUndefined();
    expect(decodeContext('k', encodeContext('k', EMPTY_CONTEXT))).toEqual({ vv: [], dots: [] });
  });

  it('is an opaque, URL-safe string', () => {
    fc.assert(
      fc.property(keyArb, contextArb, (key, ctx) => {
        expect(encodeContext(key, ctx)).toMatch(/^c1\.[A-Za-z0-9_-]*\.[0-9a-f]{16}$/);
      }),
    );
  });

  it("rejects a context decoded with another key's name", () => {
    fc.assert(
      fc.property(keyArb, keyArb, contextArb, (a, b, ctx) => {
        fc.pre(a !== b);
        expectInvalid(b, encodeContext(a, ctx));
      }),
    );
  });

  it('rejects any single-character change', () => {
    const arb = fc.tuple(keyArb, contextArb).chain(([key, ctx]) => {
      const text = encodeContext(key, ctx);
      const char = fc.oneof(
        fc.constantFrom(...'abcdefABCDEF0123456789-_.c'),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
      );
      return fc.tuple(fc.constant(key), fc.constant(text), fc.nat(text.length - 1), char);
    });
    fc.assert(
      fc.property(arb, ([key, text, at, char]) => {
        fc.pre(text[at] !== char);
        expectInvalid(key, text.slice(0, at) + char + text.slice(at + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every truncation, and a removed character', () => {
    fc.assert(
      fc.property(keyArb, contextArb, (key, ctx) => {
        const text = encodeContext(key, ctx);
        const wrong: string[] = [];
        for (let n = 0; n < text.length; n++) {
          for (const edited of [text.slice(0, n), text.slice(0, n) + text.slice(n + 1)]) {
            if (!isInvalidContext(() => decodeContext(key, edited))) wrong.push(edited);
          }
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('never throws anything but INVALID_CONTEXT on arbitrary strings', () => {
    const anyText = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string().map((s) => `c1.${s}`),
    );
    fc.assert(
      fc.property(keyArb, anyText, (key, text) => {
        expectInvalid(key, text);
      }),
      { numRuns: 300 },
    );
  });

  it('validates the payload behind a valid checksum: anything decoded is a well-formed clock, and valid clocks decode', () => {
    const junk = fc.oneof(
      fc.string(),
      fc.json().map(base64url),
      fc.record({ v: fc.jsonValue(), d: fc.jsonValue() }).map((o) => base64url(JSON.stringify(o))),
      fc
        .record({
          v: fc.array(fc.tuple(fc.string(), fc.double())),
          d: fc.array(fc.tuple(fc.string(), fc.integer())),
        })
        .map((o) => base64url(JSON.stringify(o))),
    );
    // Half the payloads are the encoder's own (it signs nothing but the payload with the key),
    // so a decoder that rejected everything would fail here too.
    const payload = fc.oneof(
      junk.map((p) => ({ p, valid: undefined })),
      contextArb.map((valid) => ({ p: payloadOf(encodeContext('any key', valid)), valid })),
    );
    fc.assert(
      fc.property(keyArb, payload, (key, { p, valid }) => {
        const ctx = decodeOrInvalid(key, forge(key, p));
        if (valid !== undefined) {
          expect(ctx, `rejected the valid payload ${p}`).toBeDefined();
          expect(pairs(ctx!.vv)).toEqual(pairs(valid.vv));
          expect(pairs(ctx!.dots)).toEqual(pairs(valid.dots));
          expect(ctx!.coordinator).toBe(valid.coordinator);
        }
        if (ctx === undefined) return;
        for (const list of [ctx.vv, ctx.dots]) {
          for (let i = 0; i < list.length; i++) {
            const e = list[i]!;
            expect(e.node.length).toBeGreaterThan(0);
            expect(e.node.length).toBeLessThanOrEqual(128);
            expect(Number.isSafeInteger(e.counter) && e.counter >= 1).toBe(true);
            if (i > 0) expect(list[i - 1]!.node < e.node).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('rejects well-signed but malformed clocks', () => {
    const key = 'k';
    const ok = encodeContext(key, { vv: [{ node: 'a', counter: 1, timestampMs: 0 }], dots: [] });
    expect(forge(key, ok.split('.')[1]!)).toBe(ok); // the forger signs like the encoder does
    const bad: unknown[] = [
      null,
      [],
      { v: [['a', 1]] },
      { v: [['a', 0]], d: [] },
      { v: [['a', 1.5]], d: [] },
      { v: [['a', 2 ** 53]], d: [] },
      {
        v: [
          ['b', 1],
          ['a', 1],
        ],
        d: [],
      },
      {
        v: [
          ['a', 1],
          ['a', 2],
        ],
        d: [],
      },
      { v: [['', 1]], d: [] },
      { v: [['x'.repeat(129), 1]], d: [] },
      { v: [['a', 1, 2]], d: [] },
      { v: [], d: [[1, 'a']] },
      { v: Array.from({ length: 1025 }, (_, i) => [`n${String(i).padStart(4, '0')}`, 1]), d: [] },
    ];
    for (const body of bad) expectInvalid(key, forge(key, base64url(JSON.stringify(body))));
    expect(decodeContext(key, forge(key, base64url('{"v":[["a",1]],"d":[["b",2]]}')))).toEqual({
      vv: [{ node: 'a', counter: 1, timestampMs: 0 }],
      dots: [{ node: 'b', counter: 2 }],
    });
  });

  it('rejects a well-signed payload whose bytes are not UTF-8, even when they would parse as JSON', () => {
    const payloadOfBytes = (bytes: number[]): string =>
      btoa(String.fromCharCode(...bytes))
        .replaceAll('+', '-')
        .replaceAll('/', '_')
        .replace(/=+$/, '');
    const around = (inner: number[]): number[] => [...utf8('{"v":[["n'), ...inner, ...utf8('",1]],"d":[]}')];
    expect(decodeContext('k', forge('k', payloadOfBytes(around([0xc3, 0xa9]))))).toMatchObject({
      vv: [{ node: 'né', counter: 1 }],
    });
    // A lone continuation byte, and a two-byte sequence cut short.
    expectInvalid('k', forge('k', payloadOfBytes(around([0x80]))));
    expectInvalid('k', forge('k', payloadOfBytes(around([0xc3]))));
  });

  it('rejects contexts longer than any Tessera issues', () => {
    const long = forge('k', base64url(JSON.stringify({ v: [], d: [], pad: 'x'.repeat(CONTEXT_CHARS_MAX) })));
    expect(long.length).toBeGreaterThan(CONTEXT_CHARS_MAX);
    expectInvalid('k', long);
  });
});
