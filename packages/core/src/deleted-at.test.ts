import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_CONTEXT } from './context.js';
import { utf8 } from './hash.js';
import { applyWrite, EMPTY_STATE, type KeyState, mergeStates } from './versions.js';

function put(stored: KeyState, node: string, nowMs: number): KeyState {
  return applyWrite(stored, {
    actor: node,
    context: EMPTY_CONTEXT,
    value: utf8('1'),
    nowMs,
    vvEntriesMax: 8,
  });
}

function del(stored: KeyState, nowMs: number): KeyState {
  const context = { vv: stored.vv, dots: [] };
  return applyWrite(stored, { actor: 'a', context, value: undefined, nowMs, vvEntriesMax: 8 });
}

describe('deletedAtMs', () => {
  it('is set by a delete that leaves no sibling, and kept by later writes', () => {
    const live = put(EMPTY_STATE, 'a', 10);
    expect('deletedAtMs' in live).toBe(false);
    const tombstone = del(live, 20);
    expect(tombstone).toMatchObject({ siblings: [], deletedAtMs: 20 });
    expect(del(tombstone, 30).deletedAtMs).toBe(30);
    expect(put(tombstone, 'b', 40).deletedAtMs).toBe(20);
  });

  it('is not set by a delete that leaves a concurrent sibling', () => {
    const seen = put(EMPTY_STATE, 'a', 10);
    const both = mergeStates(seen, put(EMPTY_STATE, 'b', 11));
    const context = { vv: seen.vv, dots: [] };
    const after = applyWrite(both, { actor: 'a', context, value: undefined, nowMs: 12, vvEntriesMax: 8 });
    expect(after.siblings).toHaveLength(1);
    expect(after.deletedAtMs).toBeUndefined();
  });

  it('merges as the maximum: commutative, associative, idempotent, absent only when absent on both', () => {
    const timeArb = fc.option(fc.nat(1000), { nil: undefined });
    const stateArb = fc
      .tuple(fc.constantFrom('a', 'b', 'c'), fc.nat(50), fc.boolean(), timeArb)
      .map(([node, t, deleted, deletedAtMs]) => {
        const s = put(EMPTY_STATE, node, t);
        const base = deleted ? del(s, t + 1) : s;
        const { deletedAtMs: _, ...rest } = base;
        return deletedAtMs === undefined ? rest : { ...rest, deletedAtMs };
      });
    fc.assert(
      fc.property(stateArb, stateArb, stateArb, (x, y, z) => {
        const at = (s: KeyState) => s.deletedAtMs;
        expect(at(mergeStates(x, y))).toBe(at(mergeStates(y, x)));
        expect(at(mergeStates(mergeStates(x, y), z))).toBe(at(mergeStates(x, mergeStates(y, z))));
        expect(at(mergeStates(x, x))).toBe(at(x));
        const defined = [x, y].map(at).filter((t) => t !== undefined);
        expect(at(mergeStates(x, y))).toBe(defined.length === 0 ? undefined : Math.max(...defined));
      }),
    );
  });

  it('survives a merge with an empty state', () => {
    const tombstone = del(put(EMPTY_STATE, 'a', 1), 5);
    expect(mergeStates(EMPTY_STATE, tombstone)).toBe(tombstone);
    expect(mergeStates(tombstone, { vv: [], siblings: [], deletedAtMs: 9 }).deletedAtMs).toBe(9);
  });
});
