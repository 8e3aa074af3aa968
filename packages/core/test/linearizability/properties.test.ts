/**
 * The linearizability checker against a brute-force search on small random histories, and on random
 * sequential executions of the register model stretched into overlapping intervals (accepted), then
 * given one impossible read (rejected).
 */
import {
  checkLinearizable,
  checkRegisterHistory,
  type Model,
  type Operation,
  type RegisterInput,
  type RegisterOutput,
  type RegisterState,
  registerModel,
} from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { op, plainModel, pr, pw, type RegOp, write } from './histories.js';

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
