import {
  applyWrite,
  decodeState,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeState,
  type KeyState,
  mergeStates,
  sameState,
} from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allAgree,
  distinctVersions,
  lazyVersion,
  mergeVersions,
  type StoredVersion,
  sameBytes,
} from './stored-version.js';

/** Replica states reached by random writes on a few replicas, some of which copied others. */
const replicaStates = fc
  .array(
    fc.record({
      replica: fc.nat({ max: 2 }),
      copyFrom: fc.option(fc.nat({ max: 2 }), { nil: undefined }),
      actor: fc.constantFrom('a', 'b', 'c'),
      value: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }),
      seesStored: fc.boolean(),
    }),
    { maxLength: 12 },
  )
  .map((steps) => {
    const states: KeyState[] = [EMPTY_STATE, EMPTY_STATE, EMPTY_STATE];
    steps.forEach((step, i) => {
      const stored = states[step.replica]!;
      if (step.copyFrom !== undefined) {
        states[step.replica] = mergeStates(stored, states[step.copyFrom]!);
        return;
      }
      const context = step.seesStored ? { vv: stored.vv, dots: [] } : EMPTY_CONTEXT;
      const value =
        step.value === undefined ? undefined : new TextEncoder().encode(JSON.stringify(step.value));
      states[step.replica] = applyWrite(stored, {
        actor: step.actor,
        context,
        value,
        nowMs: i,
        vvEntriesMax: 16,
      });
    });
    return states;
  });

function versionsOf(states: KeyState[], absent: boolean[]): (StoredVersion | undefined)[] {
  return states.map((s, i) => (absent[i] === true ? undefined : lazyVersion(encodeState(s), decodeState)));
}

describe('stored versions: a quorum read merges bytes, decoding only what differs', () => {
  it('merges to what merging every decoded state gives, and agrees exactly when all bytes are equal', () => {
    fc.assert(
      fc.property(replicaStates, fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), (states, absent) => {
        const versions = versionsOf(states, absent);
        const expected = versions.reduce<KeyState>(
          (acc, v) => (v === undefined ? acc : mergeStates(acc, decodeState(v.bytes))),
          EMPTY_STATE,
        );
        expect(sameState(mergeVersions(versions), expected)).toBe(true);
        const encoded = versions.map((v) => (v === undefined ? '-' : Buffer.from(v.bytes).toString('hex')));
        expect(allAgree(versions)).toBe(new Set(encoded).size === 1);
        expect(distinctVersions(versions)).toHaveLength(new Set(encoded.filter((e) => e !== '-')).size);
      }),
      { numRuns: 500 },
    );
  });

  it('decodes each distinct version once, and none when every replica holds the same bytes', () => {
    const state = applyWrite(EMPTY_STATE, {
      actor: 'a',
      context: EMPTY_CONTEXT,
      value: new TextEncoder().encode('"x"'),
      nowMs: 1,
      vvEntriesMax: 16,
    });
    let decodes = 0;
    const counting = (bytes: Uint8Array) => {
      decodes++;
      return decodeState(bytes);
    };
    const same = [0, 1, 2].map(() => lazyVersion(encodeState(state), counting));
    expect(allAgree(same)).toBe(true);
    expect(sameState(mergeVersions(same), state)).toBe(true);
    expect(decodes).toBe(1);
  });

  it('sameBytes: equal exactly when lengths and every byte match, for views at any offset', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.nat(7),
        fc.nat(7),
        fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))),
        (bytes, offA, offB, change) => {
          const view = (offset: number) => {
            const backing = new Uint8Array(offset + bytes.length);
            backing.set(bytes, offset);
            return backing.subarray(offset);
          };
          const a = view(offA);
          const b = view(offB);
          if (change !== null && bytes.length > 0) {
            const at = change[0] % bytes.length;
            b[at] = (b[at]! + change[1]) % 256;
          }
          const expected = a.length === b.length && a.every((x, i) => x === b[i]);
          expect(sameBytes(a, b)).toBe(expected);
          expect(sameBytes(a, a.subarray(0, Math.max(0, a.length - 1)))).toBe(a.length === 0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
