/**
 * The linearizability checker on hand-written histories known to be (or not be) linearizable, against
 * a brute-force search on small random histories, and on random sequential executions of the register
 * model stretched into overlapping intervals (accepted) then given one impossible read (rejected).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type Model, type Operation } from './checker.js';
import {
  checkRegisterHistory,
  type RegisterInput,
  type RegisterOutput,
  type RegisterState,
  registerModel,
} from './register-model.js';

type RegOp = Operation<RegisterInput, RegisterOutput>;

/** An op of process `p` from `callMs` to `returnMs` (undefined: no answer). */
const op = (
  p: number,
  input: RegisterInput,
  callMs: number,
  returnMs: number | undefined,
  output?: RegisterOutput,
): RegOp => ({ process: p, input, callMs, returnMs, output: returnMs === undefined ? undefined : output });

const write = (p: number, value: string, from: number, to: number | undefined, version?: number): RegOp =>
  op(p, { f: 'write', value }, from, to, version === undefined ? undefined : { ok: true, version });
const read = (p: number, from: number, to: number, value: string | undefined, version: number): RegOp =>
  op(p, { f: 'read' }, from, to, value === undefined ? { ok: true, version } : { ok: true, value, version });
const cas = (
  p: number,
  expectVersion: number,
  value: string,
  from: number,
  to: number | undefined,
  output?: RegisterOutput,
): RegOp => op(p, { f: 'cas', expectVersion, value }, from, to, output);
const del = (p: number, from: number, to: number | undefined, version?: number): RegOp =>
  op(p, { f: 'delete' }, from, to, version === undefined ? undefined : { ok: true, version });

const check = (history: readonly RegOp[]) => checkLinearizable(registerModel, history);

/** A plain read/write register of small integers (no versions), as in the textbook examples. */
type PlainInput = { f: 'r' } | { f: 'w'; v: number };
const plainModel: Model<number, PlainInput, number | null> = {
  init: 0,
  step: (s, i, o) =>
    i.f === 'w'
      ? o === undefined || o === null
        ? i.v
        : undefined
      : o === undefined || o === s
        ? s
        : undefined,
  key: (s) => String(s),
};
type PlainOp = Operation<PlainInput, number | null>;
const pw = (p: number, v: number, from: number, to: number | undefined): PlainOp => ({
  process: p,
  input: { f: 'w', v },
  callMs: from,
  returnMs: to,
  output: to === undefined ? undefined : null,
});
const pr = (p: number, from: number, to: number, v: number): PlainOp => ({
  process: p,
  input: { f: 'r' },
  callMs: from,
  returnMs: to,
  output: v,
});

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

/** Whether some order of all known ops and any of the unknown ones respects real time and the model. */
function bruteForce<S, I, O>(model: Model<S, I, O>, history: readonly Operation<I, O>[]): boolean {
  const precedes = (a: Operation<I, O>, b: Operation<I, O>) =>
    a.returnMs !== undefined && a.returnMs < b.callMs;
  const search = (state: S, placed: ReadonlySet<number>): boolean => {
    if (history.every((o, i) => o.returnMs === undefined || placed.has(i))) return true;
    return history.some((o, i) => {
      if (placed.has(i) || history.some((p, j) => !placed.has(j) && precedes(p, o))) return false;
      const next = model.step(state, o.input, o.output);
      return next !== undefined && search(next, new Set([...placed, i]));
    });
  };
  return search(model.init, new Set());
}

describe('against a brute-force search', () => {
  it('agrees on small random plain-register histories, wherever they sit in the bitset', () => {
    const plainOp = fc
      .record({
        write: fc.boolean(),
        v: fc.integer({ min: 0, max: 2 }),
        callMs: fc.integer({ min: 0, max: 10 }),
        length: fc.integer({ min: 0, max: 6 }),
        crashed: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      })
      .map(({ write: w, v, callMs, length, crashed }) =>
        w ? pw(0, v, callMs, crashed ? undefined : callMs + length) : pr(0, callMs, callMs + length, v),
      );
    // Sequential reads of the initial value first, so the random ops straddle the 16-op words of the
    // linearized-set key (and its window of ops not yet settled moves across them).
    const prefix = (n: number) =>
      Array.from({ length: n }, (_, k) => pr(1, -1000 + 10 * k, -995 + 10 * k, 0));
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(plainOp, { maxLength: 8 }), fc.nat({ max: 24 }), (history, n) => {
        const expected = bruteForce(plainModel, history);
        if (expected) accepted++;
        expect(checkLinearizable(plainModel, [...prefix(n), ...history]).ok).toBe(expected);
      }),
      { numRuns: 500 },
    );
    // Both answers come up often enough for the agreement to mean something.
    expect(accepted).toBeGreaterThan(50);
    expect(accepted).toBeLessThan(450);
  });
});

/** One step of a random sequential execution, and how far its interval reaches either side of it. */
interface Step {
  readonly key: string;
  readonly kind: RegisterInput['f'];
  readonly value: string;
  readonly casOffset: number;
  readonly before: number;
  readonly after: number;
  readonly crashed: boolean;
}

const step: fc.Arbitrary<Step> = fc.record({
  key: fc.constantFrom('k1', 'k2'),
  kind: fc.constantFrom<RegisterInput['f'][]>('read', 'write', 'cas', 'delete', 'read'),
  value: fc.constantFrom('"a"', '"b"', '"c"'),
  casOffset: fc.integer({ min: -1, max: 1 }),
  before: fc.integer({ min: 0, max: 35 }),
  after: fc.integer({ min: 0, max: 35 }),
  crashed: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
});

/**
 * A random sequential execution of the register model on two keys, stretched into real time: step i
 * takes effect at 10i, inside an interval widened by up to 35 ms each side (so up to ~7 ops overlap),
 * a few have no answer, and up to two crashed writes of a value never read never took effect.
 */
const execution = fc
  .record({
    steps: fc.array(step, { maxLength: 30 }),
    ghosts: fc.array(
      fc.record({ key: fc.constantFrom('k1', 'k2'), callMs: fc.integer({ min: 0, max: 300 }) }),
      {
        maxLength: 2,
      },
    ),
  })
  .map(({ steps, ghosts }) => {
    const states = new Map<string, RegisterState>();
    const history: (RegOp & { key: string })[] = [];
    // Always end with a completed read of each key, so there is a read to corrupt.
    const last = (key: string): Step => ({
      key,
      kind: 'read',
      value: '',
      casOffset: 0,
      before: 5,
      after: 5,
      crashed: false,
    });
    [...steps, last('k1'), last('k2')].forEach((s, i) => {
      const state = states.get(s.key) ?? registerModel.init;
      const input: RegisterInput =
        s.kind === 'read' || s.kind === 'delete'
          ? { f: s.kind }
          : s.kind === 'write'
            ? { f: 'write', value: s.value }
            : { f: 'cas', expectVersion: state.version + s.casOffset, value: s.value };
      const { output, next } = apply(state, input);
      states.set(s.key, next);
      const at = 10 * i;
      history.push({
        ...op(i, input, at - s.before, s.crashed ? undefined : at + s.after, output),
        key: s.key,
      });
    });
    for (const g of ghosts)
      history.push({ ...write(1000 + history.length, '"ghost"', g.callMs, undefined), key: g.key });
    return history;
  });

/** The output a register gives for `input` in `state`, and the next state. */
function apply(state: RegisterState, input: RegisterInput): { output: RegisterOutput; next: RegisterState } {
  switch (input.f) {
    case 'read':
      return { output: { ok: true, version: state.version, ...pick(state.value) }, next: state };
    case 'delete': {
      const next = state.value === undefined ? state : { version: state.version + 1 };
      return { output: { ok: true, version: next.version }, next };
    }
    case 'cas':
      if (input.expectVersion !== state.version)
        return { output: { ok: false, version: state.version }, next: state };
      return {
        output: { ok: true, version: state.version + 1 },
        next: { value: input.value, version: state.version + 1 },
      };
    case 'write':
      return {
        output: { ok: true, version: state.version + 1 },
        next: { value: input.value, version: state.version + 1 },
      };
  }
}

const pick = (value: string | undefined): { value?: string } => (value === undefined ? {} : { value });

describe('random sequential executions with overlaps', () => {
  it('are linearizable', () => {
    fc.assert(
      fc.property(execution, (history) => {
        for (const [key, result] of checkRegisterHistory(history)) expect(result, key).toEqual({ ok: true });
      }),
      { numRuns: 150 },
    );
  });

  it('are not once one read returns a value never written', () => {
    fc.assert(
      fc.property(execution, fc.nat(), (history, n) => {
        const reads = history
          .map((o, i) => ({ o, i }))
          .filter(({ o }) => o.input.f === 'read' && o.returnMs !== undefined);
        const { o, i } = reads[n % reads.length]!;
        const version = o.output?.version ?? 0;
        const corrupted = history.with(i, { ...o, output: { ok: true, value: '"never"', version } });
        const results = checkRegisterHistory(corrupted);
        expect(results.get(o.key)).toMatchObject({ ok: false });
        expect(results.get(o.key)?.unknown).toBeUndefined();
        const other = o.key === 'k1' ? 'k2' : 'k1';
        expect(results.get(other)).toEqual({ ok: true });
      }),
      { numRuns: 150 },
    );
  });
});
