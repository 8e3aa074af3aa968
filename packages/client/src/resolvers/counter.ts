/**
 * A PN-counter: a count that any number of writers change at once without losing a change. The
 * value keeps, per actor (a writer: a device, a session, a worker), the total it added (`p`) and
 * the total it subtracted (`n`); a merge takes the larger total per actor, and the count is
 * sum(p) - sum(n). A summing merge would count a sibling seen twice twice; this one cannot.
 *
 * Rule for actors: one actor id per writer that changes the counter one change at a time, never
 * shared by two writers at once. An actor's totals only grow, and only through its own changes,
 * made on a value holding its previous ones (which update() reads). A change made on a read that
 * missed the actor's own last write (a stale replica) is lost, never counted twice.
 */
import { TesseraError } from '../errors.js';
import type { SchemaIssue } from '../schema.js';
import { checkActor, entryIssues, isRecord, sortedRecord } from './checks.js';
import { type Crdt, type CrdtUpdater, defineCrdt } from './crdt.js';

export interface PNCounter {
  /** Actor → everything it added. */
  readonly p: Readonly<Record<string, number>>;
  /** Actor → everything it subtracted. */
  readonly n: Readonly<Record<string, number>>;
}

function empty(): PNCounter {
  return { p: {}, n: {} };
}

function merge(counters: readonly PNCounter[]): PNCounter {
  return { p: maxPerActor(counters.map((c) => c.p)), n: maxPerActor(counters.map((c) => c.n)) };
}

function maxPerActor(totals: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const max = new Map<string, number>();
  for (const t of totals)
    for (const [actor, n] of Object.entries(t)) max.set(actor, Math.max(max.get(actor) ?? 0, n));
  return sortedRecord(max);
}

function issues(value: unknown): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: 'A PN-counter is an object { p, n }.' }];
  const total = (n: unknown) => (isTotal(n) ? undefined : 'is a whole number >= 0.');
  return [...entryIssues(value.p, ['p'], 'a total', total), ...entryIssues(value.n, ['n'], 'a total', total)];
}

function isTotal(n: unknown): boolean {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function value(counter: PNCounter | undefined): number {
  if (counter === undefined) return 0;
  const sum = (t: Readonly<Record<string, number>>) => Object.values(t).reduce((a, b) => a + b, 0);
  return sum(counter.p) - sum(counter.n);
}

/**
 * Adds `by` to the actor's total in `side`. The updater remembers the total it wrote: applied again
 * to a value that already holds it (update() starting over after a write that may have landed),
 * it changes nothing, so the change is never counted twice. Make one updater per change.
 */
function change(side: 'p' | 'n', actor: string, by: number): CrdtUpdater<PNCounter> {
  checkActor(actor);
  if (!Number.isSafeInteger(by) || by < 1) {
    throw new TesseraError('INVALID_ARGUMENT', `A counter changes by a whole number >= 1; got ${by}.`);
  }
  let written: number | undefined;
  return (current) => {
    const base = current ?? empty();
    const seen = base[side][actor] ?? 0;
    if (written !== undefined && seen >= written) return merge([base]);
    written = seen + by;
    const next = { ...base[side], [actor]: written };
    return merge([side === 'p' ? { p: next, n: base.n } : { p: base.p, n: next }]);
  };
}

export interface PNCounterCrdt extends Crdt<PNCounter, number> {
  /** A counter at 0. */
  empty(): PNCounter;
  /** Updater: adds `by` (default 1) as `actor`. */
  increment(actor: string, by?: number): CrdtUpdater<PNCounter>;
  /** Updater: subtracts `by` (default 1) as `actor`. */
  decrement(actor: string, by?: number): CrdtUpdater<PNCounter>;
  /** The count (0 for no counter). */
  value(counter: PNCounter | undefined): number;
}

function pnCounter(): PNCounterCrdt {
  return {
    ...defineCrdt({ name: 'a PN-counter', merge, issues, view: value }),
    empty,
    increment: (actor, by = 1) => change('p', actor, by),
    decrement: (actor, by = 1) => change('n', actor, by),
    value,
  };
}

/** The PN-counter: `counter.increment(actor)`, `counter.value(c)`, `counter.resolver`, … */
export const counter: PNCounterCrdt = /* @__PURE__ */ pnCounter();
