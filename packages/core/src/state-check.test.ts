import { describe, expect, it } from 'vitest';
import { encodeState } from './codec.js';
import { TesseraError } from './errors.js';
import {
  checkReceivedState,
  decodePeerState,
  isJsonText,
  PEER_DECODE_LIMITS,
  TIME_MS_MAX,
} from './state-check.js';
import type { KeyState } from './versions.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const state = (overrides: {
  value?: Uint8Array;
  lastModifiedMs?: number;
  node?: string;
  counter?: number;
}): KeyState => ({
  vv: [{ node: 'n1', counter: 2, timestampMs: 1 }],
  siblings: [
    {
      dot: { node: overrides.node ?? 'n1', counter: overrides.counter ?? 2 },
      lastModifiedMs: overrides.lastModifiedMs ?? 1_700_000_000_000,
      value: overrides.value ?? text('{"a":[1,"b"]}'),
    },
  ],
});

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return TesseraError.is(err) ? err.code : 'not a TesseraError';
  }
}

describe('checkReceivedState', () => {
  it('accepts what Tessera writes', () => {
    expect(codeOf(() => checkReceivedState(state({})))).toBeUndefined();
    expect(
      codeOf(() =>
        checkReceivedState({
          vv: [{ node: 'n1', counter: 1, timestampMs: 5 }],
          siblings: [],
          deletedAtMs: 5,
        }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['a value that is not JSON', { value: text('not json') }],
    ['a value that is not UTF-8', { value: Uint8Array.from([0x22, 0xff, 0x22]) }],
    ['an empty value', { value: new Uint8Array(0) }],
    ['a time no Date holds', { lastModifiedMs: TIME_MS_MAX + 1 }],
    ['an empty node id', { node: '' }],
    ['a counter of 0', { counter: 0 }],
  ])('refuses %s with BAD_REQUEST', (_what, overrides) => {
    expect(codeOf(() => checkReceivedState(state(overrides)))).toBe('BAD_REQUEST');
  });

  it('tells JSON text from other bytes', () => {
    expect(isJsonText(text('null'))).toBe(true);
    expect(isJsonText(text(' {"x": "ü"} '))).toBe(true);
    expect(isJsonText(text('{'))).toBe(false);
  });
});

describe('decodePeerState', () => {
  const sibling = (i: number) => ({
    dot: { node: 'n1', counter: i + 1 },
    lastModifiedMs: 1,
    value: text('1'),
  });

  it('decodes what Tessera writes', () => {
    const written = state({});
    expect(decodePeerState(encodeState(written))).toEqual(written);
  });

  it.each([
    ['bytes that do not decode', Uint8Array.of(1, 5)],
    ['an unknown format version', Uint8Array.of(9, 0, 0)],
    ['a value that is not JSON', encodeState(state({ value: text('<html>') }))],
    [
      'more siblings than a peer may send',
      encodeState({
        vv: [{ node: 'n1', counter: PEER_DECODE_LIMITS.siblingsMax + 1, timestampMs: 1 }],
        siblings: Array.from({ length: PEER_DECODE_LIMITS.siblingsMax + 1 }, (_, i) => sibling(i)),
      }),
    ],
    [
      'more clock entries than a peer may send',
      encodeState({
        vv: Array.from({ length: PEER_DECODE_LIMITS.entriesMax + 1 }, (_, i) => ({
          node: `n${String(i).padStart(5, '0')}`,
          counter: 1,
          timestampMs: 1,
        })),
        siblings: [],
      }),
    ],
  ])('refuses %s with BAD_REQUEST', (_what, bytes) => {
    expect(codeOf(() => decodePeerState(bytes))).toBe('BAD_REQUEST');
  });
});
