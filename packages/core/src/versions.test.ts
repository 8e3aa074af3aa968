import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Dot, vvCovers, vvGet } from './clock.js';
import { type CausalContext, decodeContext, EMPTY_CONTEXT, encodeContext } from './context.js';
import { utf8 } from './hash.js';
import {
  applyWrite,
  contextAfterWrite,
  contextCaughtUp,
  EMPTY_STATE,
  isTombstone,
  type KeyState,
  latestDot,
  mergeStates,
  sameState,
} from './versions.js';

const KEY = 'model-key';
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
const BIG = 64; // vvEntriesMax large enough that nothing is ever pruned

type Write = { kind: 'write'; coord: number; ctx: number | 'local' | null; del: boolean; catchUp: boolean };
type Op = Write | { kind: 'sync'; from: number; to: number };

const opArb = (nodeCount: number, deleteOneIn: number): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.record({
      kind: fc.constant('write' as const),
      coord: fc.nat(nodeCount - 1),
      // null = blind write; 'local' = read-modify-write through the coordinator; otherwise how far back
      // in the contexts clients have been handed so far.
      ctx: fc.option(fc.oneof(fc.constant('local' as const), fc.nat(6), fc.nat()), { nil: null, freq: 4 }),
      del: fc.nat(deleteOneIn - 1).map((x) => x === 0),
      catchUp: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('sync' as const), from: fc.nat(nodeCount - 1), to: fc.nat(nodeCount - 1) }),
  );

const opsArb = (nodeCount: number, maxLength = 40, deleteOneIn = 5): fc.Arbitrary<Op[]> =>
  fc.array(opArb(nodeCount, deleteOneIn), { minLength: 1, maxLength, size: 'max' });

interface Written {
  readonly id: number;
  readonly dot: Dot | undefined; // undefined for a delete
  /** Dots this write superseded: those its context's vector covers, and its context dots the coordinator knew. */
  readonly covers: (d: Dot) => boolean;
  /** Set once a later write's context covers this write's dot (the write that saw it replaced it). */
  superseded: boolean;
}

interface Run {
  readonly replicas: KeyState[];
  readonly observed: KeyState[];
  readonly writes: Written[];
}

const dotId = (d: Dot): string => `${d.counter}@${d.node}`;
const sameDot = (a: Dot, b: Dot): boolean => a.node === b.node && a.counter === b.counter;
const valueFor = (id: number): Uint8Array => utf8(JSON.stringify(`w${id}`));
const idOf = (value: Uint8Array): number => Number(JSON.parse(new TextDecoder().decode(value)).slice(1));
const readContext = (s: KeyState): CausalContext => ({ vv: s.vv, dots: [] });
// Contexts travel through the client as opaque strings, like in the real system.
const viaClient = (c: CausalContext): CausalContext => decodeContext(KEY, encodeContext(KEY, c));

/**
 * A cluster: clients write through coordinators (each applies the write to its own replica), with a
 * context from an earlier read or write, or none; replicas pull each other's state in any order.
 */
function simulate(ops: readonly Op[], nodeCount: number, vvEntriesMax: number, check = true): Run {
  const replicas: KeyState[] = new Array<KeyState>(nodeCount).fill(EMPTY_STATE);
  const observed: KeyState[] = [EMPTY_STATE];
  const contexts: CausalContext[] = [EMPTY_CONTEXT];
  const writes: Written[] = [];
  const dots = new Set<string>();
  let now = 1_000;
  for (const op of ops) {
    if (op.kind === 'write') {
      now += 1;
      const id = writes.length;
      const back = typeof op.ctx === 'number' ? op.ctx % contexts.length : 0;
      const seen =
        op.ctx === 'local' ? readContext(replicas[op.coord]!) : contexts[contexts.length - 1 - back]!;
      const context = op.ctx === null ? EMPTY_CONTEXT : viaClient(seen);
      if (op.catchUp && !contextCaughtUp(replicas[op.coord]!, context)) {
        replicas[op.coord] = replicas.reduce(mergeStates, replicas[op.coord]!);
      }
      const stored = replicas[op.coord]!;
      const value = op.del ? undefined : valueFor(id);
      const node = NODES[op.coord]!;
      const after = applyWrite(stored, { actor: node, context, value, nowMs: now, vvEntriesMax });
      const fresh = after.siblings.filter((s) => s.lastModifiedMs === now);
      expect(fresh.length).toBe(op.del ? 0 : 1);
      if (!op.del) expect(latestDot(after, node)).toEqual(fresh[0]?.dot);
      const forced = new Set([node, ...after.siblings.map((s) => s.dot.node)]).size;
      expect(after.vv.length).toBeLessThanOrEqual(Math.max(vvEntriesMax, forced));
      const covers = (d: Dot): boolean =>
        vvCovers(context.vv, d) || (context.dots.some((x) => sameDot(x, d)) && vvCovers(stored.vv, d));
      for (const w of writes) if (w.dot !== undefined && covers(w.dot)) w.superseded = true;
      const dot = fresh[0]?.dot;
      if (dot !== undefined) {
        expect(dots.has(dotId(dot)), `two writes were given the dot ${dotId(dot)}`).toBe(false);
        dots.add(dotId(dot));
      }
      writes.push({ id, dot, covers, superseded: false });
      replicas[op.coord] = after;
      observed.push(after);
      if (check) checkNothingLost(after, writes);
      contexts.push(readContext(after), contextAfterWrite(context, fresh[0]?.dot));
    } else {
      replicas[op.to] = mergeStates(replicas[op.to]!, replicas[op.from]!);
      observed.push(replicas[op.to]!);
      contexts.push(readContext(replicas[op.to]!));
      // Only the replica that changed needs checking: superseding only ever relaxes the others.
      if (check) checkNothingLost(replicas[op.to]!, writes);
    }
  }
  return { replicas, observed, writes };
}

/** Siblings are real writes with their own values; a write this state has seen is gone only if superseded. */
function checkNothingLost(state: KeyState, writes: readonly Written[]): void {
  const present = new Set(state.siblings.map((s) => dotId(s.dot)));
  for (const s of state.siblings) expect(dotId(writes[idOf(s.value)]!.dot!)).toBe(dotId(s.dot));
  for (const w of writes) {
    if (w.dot === undefined || !vvCovers(state.vv, w.dot) || w.superseded) continue;
    expect(present.has(dotId(w.dot)), `write w${w.id} (${dotId(w.dot)}) was dropped`).toBe(true);
  }
}

/** sameState, and the siblings' values and timestamps agree too. */
const sameFull = (a: KeyState, b: KeyState): boolean =>
  sameState(a, b) &&
  a.siblings.every(
    (s, i) => `${s.lastModifiedMs}:${s.value}` === `${b.siblings[i]!.lastModifiedMs}:${b.siblings[i]!.value}`,
  );

const mergeAll = (states: readonly KeyState[]): KeyState => states.reduce(mergeStates, EMPTY_STATE);

function write(s: KeyState, node: string, ctx: CausalContext, v?: string, t = 0, max = BIG): KeyState {
  const value = v === undefined ? undefined : utf8(v);
  return applyWrite(s, { actor: node, context: ctx, value, nowMs: t, vvEntriesMax: max });
}

const values = (s: KeyState): string[] => s.siblings.map((x) => new TextDecoder().decode(x.value)).sort();

describe('mergeStates algebra on states from random histories', () => {
  const arb = fc.tuple(opsArb(4), fc.nat(), fc.nat(), fc.nat());
  const pick = (run: Run, i: number): KeyState => run.observed[i % run.observed.length]!;

  it('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(arb, ([ops, i, j, k]) => {
        const run = simulate(ops, 4, BIG, false);
        const [a, b, c] = [pick(run, i), pick(run, j), pick(run, k)];
        expect(sameFull(mergeStates(a, b), mergeStates(b, a))).toBe(true);
        expect(sameFull(mergeStates(mergeStates(a, b), c), mergeStates(a, mergeStates(b, c)))).toBe(true);
        expect(sameFull(mergeStates(a, a), a)).toBe(true);
        expect(sameFull(mergeStates(mergeStates(a, b), b), mergeStates(a, b))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('mergeStates against its definition', () => {
  /** The definition, quadratic: a sibling survives unless the other side's clock covers it and the other side dropped it. */
  const reference = (a: KeyState, b: KeyState): string[] => {
    const kept = (from: KeyState, other: KeyState) =>
      from.siblings.filter(
        (s) => !vvCovers(other.vv, s.dot) || other.siblings.some((o) => sameDot(o.dot, s.dot)),
      );
    return [...new Set([...kept(a, b), ...kept(b, a)].map((s) => dotId(s.dot)))].sort();
  };
  const coord = fc.nat(3);
  /** Mostly blind writes, so siblings pile up past the size where the merge indexes dots. */
  const pilingOps: fc.Arbitrary<Op[]> = fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('write' as const),
          coord,
          ctx: fc.constant(null),
          del: fc.constant(false),
          catchUp: fc.constant(false),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('write' as const),
          coord,
          ctx: fc.oneof(fc.constant('local' as const), fc.nat(6)),
          del: fc.boolean(),
          catchUp: fc.boolean(),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('sync' as const), from: coord, to: coord }) },
    ),
    { minLength: 40, maxLength: 150 },
  );

  it('keeps exactly the siblings the definition keeps, on states from long histories of mostly blind writes', () => {
    fc.assert(
      fc.property(pilingOps, fc.nat(), fc.nat(), (ops, i, j) => {
        const run = simulate(ops, 4, BIG, false);
        const a = run.observed[i % run.observed.length]!;
        const b = run.observed[j % run.observed.length]!;
        expect(
          mergeStates(a, b)
            .siblings.map((s) => dotId(s.dot))
            .sort(),
        ).toEqual(reference(a, b));
      }),
      { numRuns: 60 },
    );
  });

  it('drops what one side of 31 siblings has seen and dropped, and keeps the rest, from a side of 40', () => {
    // Past 16 siblings each: the merge looks the dots up in its index, not by a scan.
    let all = EMPTY_STATE;
    let afterTen = EMPTY_STATE;
    for (let i = 0; i < 40; i++) {
      all = write(all, NODES[i % 4]!, EMPTY_CONTEXT, `"v${i}"`, i);
      if (i === 9) afterTen = all;
    }
    const replaced = write(all, 'n5', readContext(afterTen), '"new"', 40);
    expect([all.siblings.length, replaced.siblings.length]).toEqual([40, 31]);
    for (const [a, b] of [
      [all, replaced],
      [replaced, all],
    ] as const) {
      const merged = mergeStates(a, b)
        .siblings.map((x) => dotId(x.dot))
        .sort();
      expect(merged).toEqual(reference(a, b));
      expect(merged).toEqual(replaced.siblings.map((x) => dotId(x.dot)).sort());
    }
  });
});

describe('cluster model', () => {
  it('never drops a write unless a later write saw it; merged result is exactly the unsuperseded writes', () => {
    fc.assert(
      fc.property(opsArb(4), (ops) => {
        const run = simulate(ops, 4, BIG);
        const all = mergeAll(run.replicas);
        checkNothingLost(all, run.writes);
        const expected = run.writes.flatMap((w) =>
          w.dot === undefined || w.superseded ? [] : [dotId(w.dot)],
        );
        expect(all.siblings.map((s) => dotId(s.dot)).sort()).toEqual(expected.sort());
      }),
      { numRuns: 300 },
    );
  });

  it('converges: after every replica pulls from every other once, in any order, all are the same', () => {
    const arb = opsArb(4).chain((ops) => {
      const pairs = [0, 1, 2, 3].flatMap((to) => [0, 1, 2, 3].map((from) => [from, to] as const));
      return fc.tuple(fc.constant(ops), fc.shuffledSubarray(pairs, { minLength: pairs.length }));
    });
    fc.assert(
      fc.property(arb, ([ops, pairs]) => {
        const { replicas } = simulate(ops, 4, BIG, false);
        const all = mergeAll(replicas);
        for (const [from, to] of pairs) replicas[to] = mergeStates(replicas[to]!, replicas[from]!);
        for (const r of replicas) expect(sameFull(r, all)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('a write past vvEntriesMax is refused and changes nothing; vectors are never pruned', () => {
    fc.assert(
      fc.property(opsArb(5, 40), fc.integer({ min: 1, max: 4 }), fc.nat(4), (ops, max, c) => {
        const stored = simulate(ops, 5, BIG, false).replicas[c]!;
        const actor = `fresh-${c}`;
        const grows = stored.vv.length + 1 > max;
        const attempt = () => write(stored, actor, readContext(stored), 'x', 9_000, max);
        if (grows) {
          expect(attempt).toThrow(expect.objectContaining({ code: 'CLOCK_TOO_LARGE' }));
        } else {
          const after = attempt();
          for (const e of stored.vv) expect(vvGet(after.vv, e.node)).toBeGreaterThanOrEqual(e.counter);
        }
      }),
    );
  });
});

describe('applyWrite scenarios', () => {
  it('two blind writes through the same coordinator become two siblings', () => {
    fc.assert(
      fc.property(opsArb(3, 15), fc.nat(2), (ops, c) => {
        const stored = simulate(ops, 3, BIG, false).replicas[c]!;
        const one = write(stored, NODES[c]!, EMPTY_CONTEXT, 'x', 5_000);
        const two = write(one, NODES[c]!, EMPTY_CONTEXT, 'y', 5_001);
        expect(two.siblings.length).toBe(stored.siblings.length + 2);
        expect(values(two)).toEqual([...values(stored), 'x', 'y'].sort());
      }),
    );
  });

  it("a write with a state's context replaces exactly that state's siblings", () => {
    fc.assert(
      fc.property(opsArb(3, 20), fc.nat(), fc.nat(2), (ops, i, c) => {
        const run = simulate(ops, 3, BIG, false);
        const seen = run.observed[i % run.observed.length]!;
        const all = mergeAll(run.replicas);
        const after = write(run.replicas[c]!, NODES[c]!, readContext(seen), 'new', 9_000);
        const merged = mergeStates(all, after);
        const seenDots = new Set(seen.siblings.map((s) => dotId(s.dot)));
        const expected = all.siblings.filter((s) => !seenDots.has(dotId(s.dot))).map((s) => dotId(s.dot));
        const newDot = after.siblings.find((s) => s.lastModifiedMs === 9_000)!.dot;
        expect(merged.siblings.map((s) => dotId(s.dot)).sort()).toEqual([...expected, dotId(newDot)].sort());
      }),
    );
  });

  it('a delete leaves a tombstone that a stale replica cannot undo', () => {
    let a = write(EMPTY_STATE, 'n1', EMPTY_CONTEXT, 'v1', 1);
    a = write(a, 'n1', EMPTY_CONTEXT, 'v2', 2);
    const stale = a;
    const deleted = write(a, 'n2', readContext(a), undefined, 3);
    expect(isTombstone(deleted)).toBe(true);
    expect(deleted.siblings).toEqual([]);
    for (const m of [mergeStates(deleted, stale), mergeStates(stale, deleted)]) {
      expect(isTombstone(m)).toBe(true);
      expect(sameState(m, deleted)).toBe(true);
    }
  });

  it('a delete of any observed state removes exactly what it saw, even from stale replicas', () => {
    fc.assert(
      fc.property(opsArb(3, 25), fc.nat(2), (ops, c) => {
        const run = simulate(ops, 3, BIG, false);
        const all = mergeAll(run.replicas);
        const deleted = write(run.replicas[c]!, NODES[c]!, readContext(all), undefined, 9_000);
        if (all.vv.length > 0) expect(isTombstone(deleted)).toBe(true);
        for (const stale of [...run.observed, all]) {
          expect(mergeStates(stale, deleted).siblings).toEqual([]);
          expect(mergeStates(deleted, stale).siblings).toEqual([]);
        }
      }),
    );
  });

  it('a put concurrent with a delete (same context) survives the merge', () => {
    fc.assert(
      fc.property(opsArb(3, 25), fc.nat(), fc.nat(2), fc.nat(2), (ops, i, pc, dc) => {
        const run = simulate(ops, 3, BIG, false);
        const seen = run.observed[i % run.observed.length]!;
        const put = write(run.replicas[pc]!, NODES[pc]!, readContext(seen), 'survivor', 9_000);
        const del = write(run.replicas[dc]!, NODES[dc]!, readContext(seen), undefined, 9_001);
        for (const m of [
          mergeStates(put, del),
          mergeStates(del, put),
          mergeAll([...run.replicas, del, put]),
        ]) {
          const seenDots = new Set(seen.siblings.map((x) => dotId(x.dot)));
          expect(values(m).filter((v) => v === 'survivor')).toEqual(['survivor']);
          expect(m.siblings.filter((x) => seenDots.has(dotId(x.dot)))).toEqual([]);
        }
      }),
    );
  });

  it("a put's returned context replaces its own version, not a concurrent one by the same coordinator", () => {
    const base = write(EMPTY_STATE, 'n1', EMPTY_CONTEXT, 'base', 1);
    const seen = readContext(base);
    const mine = write(base, 'n1', seen, 'mine', 2);
    const myContext = viaClient(contextAfterWrite(seen, latestDot(mine, 'n1')));
    const theirs = write(mine, 'n1', seen, 'theirs', 3); // another client, same read, same coordinator
    expect(values(theirs)).toEqual(['mine', 'theirs']);
    const next = write(theirs, 'n1', myContext, 'mine2', 4);
    expect(values(next)).toEqual(['mine2', 'theirs']);
    expect(contextCaughtUp(base, myContext)).toBe(false);
    expect(contextCaughtUp(theirs, myContext)).toBe(true);
  });

  it("an actor's new dot after a delete is above every dot it stamped on the key", () => {
    const stale = write(EMPTY_STATE, 'x', EMPTY_CONTEXT, 'old', 1); // another replica keeps this
    let x = mergeStates(stale, write(EMPTY_STATE, 'z', EMPTY_CONTEXT, 'z', 2));
    x = write(x, 'x', readContext(x), undefined, 3); // delete everything
    x = write(x, 'x', EMPTY_CONTEXT, 'new', 4);
    expect(latestDot(x, 'x')!.counter).toBe(2);
    expect(values(mergeStates(x, stale))).toEqual(['new']);
    expect(values(mergeStates(stale, x))).toEqual(['new']);
  });
});
