import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VvEntry } from './clock.js';
import { decodeState, encodeState } from './codec.js';
import { type ErrorCode, TesseraError } from './errors.js';
import type { KeyState, Sibling } from './versions.js';

const MAX = Number.MAX_SAFE_INTEGER;
const nodeArb = fc.string({ unit: 'grapheme', maxLength: 12 });
const counterArb = fc.integer({ min: 1, max: MAX });
const timeArb = fc.integer({ min: 0, max: MAX });

const vvArb: fc.Arbitrary<VvEntry[]> = fc
  .uniqueArray(fc.record({ node: nodeArb, counter: counterArb, timestampMs: timeArb }), {
    selector: (e) => e.node,
    maxLength: 6,
  })
  .map((es) => [...es].sort((x, y) => (x.node < y.node ? -1 : 1)));

const siblingArb: fc.Arbitrary<Sibling> = fc.record({
  dot: fc.record({ node: nodeArb, counter: counterArb }),
  lastModifiedMs: timeArb,
  value: fc.uint8Array({ maxLength: 40 }),
});

const stateArb: fc.Arbitrary<KeyState> = fc.record(
  {
    vv: vvArb,
    siblings: fc.array(siblingArb, { maxLength: 5 }),
    deletedAtMs: timeArb,
  },
  { requiredKeys: ['vv', 'siblings'] },
);

/** Plain data, so byte values compare by content whatever buffer they view. */
const plain = (s: KeyState) => ({
  deletedAtMs: s.deletedAtMs,
  vv: s.vv.map((e) => ({ ...e })),
  siblings: s.siblings.map((x) => ({
    dot: { ...x.dot },
    lastModifiedMs: x.lastModifiedMs,
    value: [...x.value],
  })),
});

function thrown(fn: () => unknown, required = true): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  if (required) throw new Error('expected a throw');
  return 'no error';
}

function expectTesseraError(fn: () => unknown, code: ErrorCode): void {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(TesseraError);
  expect((err as TesseraError).code).toBe(code);
}

/** Decodes, or fails the way a corrupt input must: BAD_REQUEST. Whatever decodes re-encodes. */
function decodeOrBadRequest(bytes: Uint8Array): void {
  let state: KeyState;
  try {
    state = decodeState(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(TesseraError);
    expect((err as TesseraError).code).toBe('BAD_REQUEST');
    return;
  }
  expect(plain(decodeState(encodeState(state)))).toEqual(plain(state));
}

describe('encodeState / decodeState', () => {
  it('round-trips any state', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const bytes = encodeState(state);
        const back = decodeState(bytes);
        expect(plain(back)).toEqual(plain(state));
        expect(encodeState(back)).toEqual(bytes);
      }),
    );
  });

  it('round-trips the extremes', () => {
    const state: KeyState = {
      vv: [
        { node: '', counter: 1, timestampMs: 0 },
        { node: 'n\u0000\u{1F600}', counter: MAX, timestampMs: MAX },
      ],
      siblings: [
        { dot: { node: '\u{10FFFF}', counter: MAX }, lastModifiedMs: MAX, value: new Uint8Array(300) },
      ],
    };
    expect(plain(decodeState(encodeState(state)))).toEqual(plain(state));
    expect(plain(decodeState(encodeState({ vv: [], siblings: [] })))).toEqual({ vv: [], siblings: [] });
  });

  it('rejects every truncation with BAD_REQUEST', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const bytes = encodeState(state);
        const wrong: string[] = [];
        for (let n = 0; n < bytes.length; n++) {
          const err = thrown(() => decodeState(bytes.subarray(0, n)), false);
          if (!(err instanceof TesseraError) || err.code !== 'BAD_REQUEST')
            wrong.push(`${n}: ${String(err)}`);
        }
        expect(wrong).toEqual([]);
      }),
    );
  });

  it('rejects trailing bytes, unknown versions, unsorted or zero clock entries', () => {
    const bytes = encodeState({ vv: [{ node: 'a', counter: 1, timestampMs: 0 }], siblings: [] });
    expectTesseraError(() => decodeState(Uint8Array.of(...bytes, 0)), 'BAD_REQUEST');
    expectTesseraError(() => decodeState(Uint8Array.of(3, ...bytes.subarray(1))), 'BAD_REQUEST');
    // Version 2 without its trailing deletion time is truncated.
    expectTesseraError(() => decodeState(Uint8Array.of(2, ...bytes.subarray(1))), 'BAD_REQUEST');
    const entry = (node: string, counter: number): VvEntry => ({ node, counter, timestampMs: 0 });
    for (const vv of [[entry('b', 1), entry('a', 1)], [entry('a', 1), entry('a', 2)], [entry('a', 0)]]) {
      expectTesseraError(() => decodeState(encodeState({ vv, siblings: [] })), 'BAD_REQUEST');
    }
    // A node id that is not UTF-8.
    expectTesseraError(() => decodeState(Uint8Array.of(1, 1, 1, 0xff, 1, 0, 0)), 'BAD_REQUEST');
  });

  it('writes a state without deletedAtMs as format 1, byte for byte as before, and one with it as format 2', () => {
    const tombstone: KeyState = { vv: [{ node: 'a', counter: 3, timestampMs: 5 }], siblings: [] };
    // version 1, one entry: "a", counter 3, timestamp 5, no siblings.
    const v1 = Uint8Array.of(1, 1, 1, 0x61, 3, 5, 0);
    expect(encodeState(tombstone)).toEqual(v1);
    expect(decodeState(v1)).toEqual(tombstone);
    expect('deletedAtMs' in decodeState(v1)).toBe(false);
    const deleted = { ...tombstone, deletedAtMs: 300 };
    const v2 = Uint8Array.of(2, 1, 1, 0x61, 3, 5, 0, 0xac, 0x02);
    expect(encodeState(deleted)).toEqual(v2);
    expect(decodeState(v2)).toEqual(deleted);
  });

  it('writes a node id as its UTF-8 bytes, ASCII or not, short or long', () => {
    const varint = (n: number): number[] =>
      n < 0x80 ? [n] : [(n % 0x80) | 0x80, ...varint(Math.floor(n / 0x80))];
    const ids = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 100 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
      fc.string({ unit: 'binary', maxLength: 100 }),
    );
    fc.assert(
      fc.property(ids, (node) => {
        const utf8 = [...new TextEncoder().encode(node)];
        const state: KeyState = { vv: [{ node, counter: 3, timestampMs: 5 }], siblings: [] };
        const bytes = encodeState(state);
        expect([...bytes]).toEqual([1, 1, ...varint(utf8.length), ...utf8, 3, 5, 0]);
        expect(decodeState(bytes).vv[0]!.node).toBe(new TextDecoder().decode(new TextEncoder().encode(node)));
      }),
      { numRuns: 500 },
    );
  });

  it('hands out encodings no later encoding changes (they are built in one shared buffer)', () => {
    const big: KeyState = {
      vv: [{ node: 'n1', counter: 1, timestampMs: 1 }],
      siblings: [
        { dot: { node: 'n1', counter: 1 }, lastModifiedMs: 1, value: new Uint8Array(200_000).fill(7) },
      ],
    };
    const small: KeyState = { vv: [{ node: 'a', counter: 3, timestampMs: 5 }], siblings: [] };
    const first = encodeState(small);
    const copy = Uint8Array.from(first);
    expect(decodeState(encodeState(big)).siblings[0]!.value.length).toBe(200_000);
    const other = encodeState({ ...small, vv: [{ node: 'zzzz', counter: 9, timestampMs: 9 }] });
    expect(first).toEqual(copy);
    expect(decodeState(other).vv[0]!.node).toBe('zzzz');
    expect(first.buffer).not.toBe(other.buffer);
  });

  it('rejects integers beyond 2^53 - 1 instead of rounding them', () => {
    // version 1, one entry: node "a", counter = 2^56 - 1 (eight varint bytes), timestamp 0, no siblings.
    const bytes = Uint8Array.of(1, 1, 1, 0x61, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0);
    expectTesseraError(() => decodeState(bytes), 'BAD_REQUEST');
    const max = encodeState({ vv: [{ node: 'a', counter: MAX, timestampMs: 0 }], siblings: [] });
    expect(decodeState(max).vv[0]!.counter).toBe(MAX);
  });

  it('never throws anything but BAD_REQUEST on random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), decodeOrBadRequest), { numRuns: 300 });
    for (const version of [1, 2]) {
      const versioned = fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.of(version, ...b));
      fc.assert(fc.property(versioned, decodeOrBadRequest), { numRuns: 300 });
    }
  });

  it('never throws anything but BAD_REQUEST on corrupted encodings', () => {
    const arb = stateArb.chain((s) => {
      const bytes = encodeState(s);
      return fc.tuple(fc.constant(bytes), fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 }));
    });
    fc.assert(
      fc.property(arb, ([bytes, at, byte]) => {
        const copy = bytes.slice();
        copy[at] = byte;
        decodeOrBadRequest(copy);
      }),
      { numRuns: 300 },
    );
  });
});

describe('decode limits', () => {
  it('enforces entriesMax and siblingsMax (inclusive)', () => {
    fc.assert(
      fc.property(stateArb, (state) => {
        const bytes = encodeState(state);
        const entries = state.vv.length;
        const siblings = state.siblings.length;
        expect(decodeState(bytes, { entriesMax: entries, siblingsMax: siblings }).siblings.length).toBe(
          siblings,
        );
        if (entries > 0) {
          expectTesseraError(
            () => decodeState(bytes, { entriesMax: entries - 1, siblingsMax: siblings }),
            'BAD_REQUEST',
          );
        }
        if (siblings > 0) {
          expectTesseraError(
            () => decodeState(bytes, { entriesMax: entries, siblingsMax: siblings - 1 }),
            'BAD_REQUEST',
          );
        }
      }),
    );
  });

  it('rejects a huge declared count before trying to read it', () => {
    // version 1, 0 entries, then a sibling count of 2^35 with nothing behind it.
    const bytes = Uint8Array.of(1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
    expectTesseraError(() => decodeState(bytes), 'BAD_REQUEST');
    expectTesseraError(() => decodeState(Uint8Array.of(1, 0x80, 0x80, 0x80, 0x80, 0x01)), 'BAD_REQUEST');
  });
});
