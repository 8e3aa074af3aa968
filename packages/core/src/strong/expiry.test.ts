import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FirstSeen, TxnExpiry } from './expiry.js';

function clocks(timeoutMs: number) {
  const c = { wallMs: 1_000_000, elapsedMs: 0 };
  const expiry = new TxnExpiry({ now: () => c.wallMs, elapsedMs: () => c.elapsedMs, timeoutMs });
  return { c, expiry };
}

describe('TxnExpiry', () => {
  it('expires a transaction whose expiry, written on a clock far ahead, is still in the future once watched for its timeout', () => {
    const { c, expiry } = clocks(5_000);
    const aheadExpiry = c.wallMs + 11 * 60_000;
    expect(expiry.expired('t1', aheadExpiry)).toBe(false);
    c.elapsedMs += 5_000;
    expect(expiry.expired('t1', aheadExpiry)).toBe(false);
    c.elapsedMs += 1;
    expect(expiry.expired('t1', aheadExpiry)).toBe(true);
  });

  it('expires by the wall clock alone, and waits graceMs longer either way', () => {
    const { c, expiry } = clocks(5_000);
    expect(expiry.expired('t1', c.wallMs - 1)).toBe(true);
    expect(expiry.expired('t1', c.wallMs - 1, 1_000)).toBe(false);
    c.elapsedMs += 6_001;
    expect(expiry.expired('t1', c.wallMs + 60_000, 1_000)).toBe(true);
  });

  it('starts watching again after a transaction finished', () => {
    const { c, expiry } = clocks(5_000);
    expiry.expired('t1', c.wallMs + 60_000);
    c.elapsedMs += 10_000;
    expiry.finished('t1');
    expect(expiry.expired('t1', c.wallMs + 60_000)).toBe(false);
  });

  it('never expires a transaction earlier than its timeout after first sight, whatever the wall clock does before its expiry', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4_999 }), { maxLength: 20 }), (steps) => {
        const { c, expiry } = clocks(5_000);
        const expiresAtMs = c.wallMs + 5_000;
        expiry.expired('t', expiresAtMs);
        for (const step of steps) {
          c.elapsedMs = Math.min(5_000, c.elapsedMs + step);
          c.wallMs = Math.min(expiresAtMs, c.wallMs + step);
          expect(expiry.expired('t', expiresAtMs)).toBe(false);
        }
      }),
    );
  });
});

describe('FirstSeen', () => {
  it('holds at most idsMax ids, dropping the oldest, whose watch starts over', () => {
    let now = 0;
    const seen = new FirstSeen(() => now, 2);
    seen.watchedMs('a');
    now = 10;
    seen.watchedMs('b');
    now = 20;
    seen.watchedMs('c');
    expect(seen.size).toBe(2);
    expect(seen.watchedMs('b')).toBe(10);
    expect(seen.watchedMs('a')).toBe(0);
  });
});
