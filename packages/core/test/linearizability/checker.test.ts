/**
 * The linearizability checker (core src/linearizability) on hand-written histories known to be, or
 * not to be, linearizable: the generic search on a plain register, then the register model.
 */
import { checkLinearizable, checkRegisterHistory, type Model } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { cas, check, del, type PlainOp, plainModel, pr, pw, read, write } from './histories.js';

describe('the generic checker (plain register)', () => {
  it('accepts an empty history and a sequential one', () => {
    expect(checkLinearizable(plainModel, [])).toEqual({ ok: true });
    expect(
      checkLinearizable(plainModel, [pw(0, 1, 0, 1), pr(1, 2, 3, 1), pw(0, 2, 4, 5), pr(1, 6, 7, 2)]).ok,
    ).toBe(true);
  });

  it('rejects two overlapping writes whose order two readers see differently', () => {
    const writes = [pw(0, 1, 0, 100), pw(1, 2, 0, 100)];
    // Reader 2 sees 1 then 2, reader 3 sees 2 then 1, all while the writes run.
    const split = [pr(2, 10, 20, 1), pr(2, 30, 40, 2), pr(3, 10, 20, 2), pr(3, 30, 40, 1)];
    const result = checkLinearizable(plainModel, [...writes, ...split]);
    expect(result.ok).toBe(false);
    expect(result.unknown).toBeUndefined();
    // Both readers seeing 1 then 2 is fine: w1, r, r, w2, r, r.
    const agreed = [pr(2, 10, 20, 1), pr(2, 30, 40, 2), pr(3, 10, 20, 1), pr(3, 30, 40, 2)];
    expect(checkLinearizable(plainModel, [...writes, ...agreed]).ok).toBe(true);
    // Once both writes are done the value is fixed: reading 2 then 1 afterwards is not.
    expect(checkLinearizable(plainModel, [...writes, pr(2, 110, 120, 2), pr(3, 130, 140, 1)]).ok).toBe(false);
  });

  it('rejects a crashed write that appears, disappears and reappears; accepts one that just appears', () => {
    const crashed = pw(0, 2, 0, undefined);
    const base = [pw(1, 1, 0, 5), crashed];
    expect(checkLinearizable(plainModel, [...base, pr(2, 10, 15, 2), pr(2, 20, 25, 2)]).ok).toBe(true);
    expect(checkLinearizable(plainModel, [...base, pr(2, 10, 15, 1), pr(2, 20, 25, 2)]).ok).toBe(true);
    expect(
      checkLinearizable(plainModel, [...base, pr(2, 10, 15, 2), pr(2, 20, 25, 1), pr(2, 30, 35, 2)]).ok,
    ).toBe(false);
  });

  it('takes ops touching at the same millisecond as concurrent', () => {
    // The write returns at 10 and the read is called at 10: the read may come first.
    expect(checkLinearizable(plainModel, [pw(0, 1, 0, 10), pr(1, 10, 20, 0)]).ok).toBe(true);
    expect(checkLinearizable(plainModel, [pw(0, 1, 0, 10), pr(1, 11, 20, 0)]).ok).toBe(false);
  });

  it('may leave out an op with no answer that could never have applied', () => {
    // A semaphore: 'take' blocks (cannot apply) at 0, so a timed-out take must be left out entirely.
    type SemInput = 'put' | 'take' | 'get';
    const semaphore: Model<number, SemInput, number | null> = {
      init: 0,
      step: (s, i, o) => {
        if (i === 'get') return o === undefined || o === s ? s : undefined;
        if (i === 'put') return s + 1;
        return s > 0 ? s - 1 : undefined;
      },
      key: (s) => String(s),
    };
    const sem = (input: SemInput, callMs: number, returnMs: number | undefined, output: number | null) => ({
      process: 0,
      input,
      callMs,
      returnMs,
      output: returnMs === undefined ? undefined : output,
    });
    expect(checkLinearizable(semaphore, [sem('take', 0, undefined, null), sem('get', 10, 15, 0)]).ok).toBe(
      true,
    );
    const put = [sem('put', 20, 25, null)];
    expect(
      checkLinearizable(semaphore, [sem('take', 0, undefined, null), ...put, sem('get', 30, 35, 0)]).ok,
    ).toBe(true);
    expect(checkLinearizable(semaphore, [sem('take', 0, 50, null), ...put, sem('get', 30, 35, 0)]).ok).toBe(
      true,
    );
    expect(checkLinearizable(semaphore, [sem('take', 0, 18, null), ...put, sem('get', 30, 35, 1)]).ok).toBe(
      false,
    );
  });

  it('ignores the output of an op with no answer', () => {
    const crashed: PlainOp = { ...pr(0, 0, 5, 9), returnMs: undefined };
    expect(checkLinearizable(plainModel, [crashed, pr(1, 10, 15, 0)]).ok).toBe(true);
  });

  it('rejects a bad interval', () => {
    expect(() => checkLinearizable(plainModel, [pr(0, 10, 5, 0)])).toThrow(RangeError);
  });

  it('explains a failure with the longest prefix and the op that could not be placed', () => {
    const result = checkLinearizable(plainModel, [pw(0, 1, 0, 5), pr(1, 10, 15, 1), pr(1, 20, 25, 7)]);
    expect(result.ok).toBe(false);
    expect(result.explanation).toContain('2 of 3 ops');
    expect(result.explanation).toContain('ending in state 1');
    expect(result.explanation).toContain('could not place: #2 p1 {"f":"r"} -> 7 [20, 25]');
  });

  it('explains with the prefix the search reached after backtracking', () => {
    // w1 then w2 leaves 2, which the read of 1 rules out; w2 then w1 gets as far as that read.
    const result = checkLinearizable(plainModel, [
      pw(0, 1, 0, 10),
      pw(1, 2, 0, 10),
      pr(2, 20, 25, 1),
      pr(2, 30, 35, 9),
    ]);
    expect(result.explanation).toContain('3 of 4 ops, ending in state 1');
    expect(result.explanation).toContain('#1 p1 {"f":"w","v":2} -> null [0, 10]; #0 p0 {"f":"w","v":1}');
    expect(result.explanation).toContain('could not place: #3');
  });

  it('memoises: many concurrent reads and one impossible read stay tractable', () => {
    // Without the cache the search tries every order of the 14 reads (14! ≈ 8.7e10); with it, each
    // subset once (2^14).
    const reads = Array.from({ length: 14 }, (_, i) => pr(i, 0, 100, 0));
    const result = checkLinearizable(plainModel, [...reads, pr(99, 0, 100, 5)], { stepsMax: 2_000_000 });
    expect(result).toMatchObject({ ok: false });
    expect(result.unknown).toBeUndefined();
  });

  it('reports unknown, not a violation, when the budget runs out', () => {
    const reads = Array.from({ length: 14 }, (_, i) => pr(i, 0, 100, 0));
    const result = checkLinearizable(plainModel, [...reads, pr(99, 0, 100, 5)], { stepsMax: 100 });
    expect(result).toMatchObject({ ok: false, unknown: true });
    expect(result.explanation).toMatch(/cut off after 100 steps/);
    // A linearizable history within the budget is still accepted.
    expect(checkLinearizable(plainModel, reads, { stepsMax: 100 })).toEqual({ ok: true });
  });
});

describe('the register model', () => {
  it('accepts overlapping writes read back in version order', () => {
    const history = [
      write(0, 'a', 0, 10, 2),
      write(1, 'b', 0, 10, 1),
      read(2, 5, 6, 'b', 1),
      read(2, 20, 25, 'a', 2),
    ];
    expect(check(history).ok).toBe(true);
  });

  it('rejects overlapping writes whose reads go back in order', () => {
    const writes = [write(0, 'a', 0, 10, 1), write(1, 'b', 0, 10, 2)];
    expect(check([...writes, read(2, 20, 25, 'b', 2), read(3, 30, 35, 'a', 1)]).ok).toBe(false);
    // A read whose value and version disagree with any one state.
    expect(check([...writes, read(2, 20, 25, 'a', 2)]).ok).toBe(false);
  });

  it('rejects a stale read after a completed write; accepts it while the write runs', () => {
    const writes = [write(0, 'a', 0, 5, 1), write(0, 'b', 10, 15, 2)];
    expect(check([...writes, read(1, 20, 25, 'a', 1)]).ok).toBe(false);
    expect(check([...writes, read(1, 12, 18, 'a', 1)]).ok).toBe(true);
  });

  it('rejects a lost CAS: acknowledged, then read as never applied', () => {
    const history = [
      write(0, 'a', 0, 5, 1),
      cas(1, 1, 'b', 10, 15, { ok: true, version: 2 }),
      read(2, 20, 25, 'a', 1),
    ];
    expect(check(history).ok).toBe(false);
    const kept = [...history.slice(0, 2), read(2, 20, 25, 'b', 2)];
    expect(check(kept).ok).toBe(true);
  });

  it('rejects two CASes that both succeeded from the same version', () => {
    const first = [write(0, 'a', 0, 5, 1), cas(1, 1, 'b', 10, 20, { ok: true, version: 2 })];
    expect(check([...first, cas(2, 1, 'c', 10, 20, { ok: true, version: 2 })]).ok).toBe(false);
    expect(check([...first, cas(2, 1, 'c', 10, 20, { ok: true, version: 3 })]).ok).toBe(false);
    // One wins, the other's precondition fails: fine, with or without the version it saw.
    expect(check([...first, cas(2, 1, 'c', 10, 20, { ok: false, version: 2 })]).ok).toBe(true);
    expect(check([...first, cas(2, 1, 'c', 10, 20, { ok: false })]).ok).toBe(true);
    // A refusal naming a version the register never had at a time the CAS ran is not.
    expect(check([...first, cas(2, 1, 'c', 10, 20, { ok: false, version: 5 })]).ok).toBe(false);
    // Nor is refusing a CAS whose precondition held throughout.
    expect(check([write(0, 'a', 0, 5, 1), cas(2, 1, 'c', 10, 20, { ok: false, version: 1 })]).ok).toBe(false);
  });

  it('rejects a read of a value never written', () => {
    expect(check([write(0, 'a', 0, 5, 1), read(1, 10, 15, 'z', 1)]).ok).toBe(false);
    expect(check([read(1, 0, 5, 'z', 0)]).ok).toBe(false);
    expect(check([read(1, 0, 5, undefined, 0)]).ok).toBe(true);
  });

  it('accepts a crashed write whose value later appears, or never does', () => {
    const crashed = write(0, 'x', 0, undefined);
    expect(check([crashed, read(1, 100, 105, 'x', 1)]).ok).toBe(true);
    expect(check([crashed, read(1, 100, 105, undefined, 0)]).ok).toBe(true);
    // It may take effect long after its call, after later writes.
    expect(
      check([crashed, write(1, 'b', 10, 15, 1), read(2, 20, 25, 'x', 2), read(2, 30, 35, 'x', 2)]).ok,
    ).toBe(true);
    // But not before its call.
    expect(check([read(1, 0, 5, 'x', 1), write(0, 'x', 10, undefined)]).ok).toBe(false);
  });

  it('rejects a crashed write that appears, disappears, then reappears', () => {
    const history = [
      write(0, 'a', 0, 5, 1),
      write(1, 'x', 6, undefined),
      read(2, 10, 15, 'x', 2),
      read(2, 20, 25, 'a', 1),
      read(2, 30, 35, 'x', 2),
    ];
    expect(check(history).ok).toBe(false);
  });

  it('lets a CAS with no answer apply or not', () => {
    const base = [write(0, 'a', 0, 5, 1), cas(1, 1, 'b', 10, undefined)];
    expect(check([...base, read(2, 20, 25, 'b', 2)]).ok).toBe(true);
    expect(check([...base, read(2, 20, 25, 'a', 1)]).ok).toBe(true);
    expect(check([...base, read(2, 20, 25, 'c', 2)]).ok).toBe(false);
  });

  it('deletes: absent stays absent at the same version, present goes absent with the next version', () => {
    expect(check([del(0, 0, 5, 0), read(1, 10, 15, undefined, 0)]).ok).toBe(true);
    expect(check([del(0, 0, 5, 1)]).ok).toBe(false);
    const written = [write(0, 'a', 0, 5, 1), del(0, 10, 15, 2)];
    expect(check([...written, read(1, 20, 25, undefined, 2)]).ok).toBe(true);
    expect(check([...written, read(1, 20, 25, 'a', 1)]).ok).toBe(false);
    expect(check([...written, write(1, 'b', 20, 25, 3), read(1, 30, 35, 'b', 3)]).ok).toBe(true);
  });

  it('checks each key on its own', () => {
    const history = [
      { ...write(0, 'a', 0, 5, 1), key: 'k1' },
      { ...read(1, 10, 15, 'a', 1), key: 'k1' },
      { ...write(0, 'b', 0, 5, 1), key: 'k2' },
      // On one register this read of k2's value in k1 would fail; k2's own history is fine.
      { ...read(1, 10, 15, undefined, 0), key: 'k3' },
      { ...read(2, 20, 25, 'z', 1), key: 'k2' },
    ];
    const results = checkRegisterHistory(history);
    expect([...results.keys()].sort()).toEqual(['k1', 'k2', 'k3']);
    expect(results.get('k1')?.ok).toBe(true);
    expect(results.get('k2')?.ok).toBe(false);
    expect(results.get('k3')?.ok).toBe(true);
  });
});
