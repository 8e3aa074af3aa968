/**
 * An observed-remove set of any JSON values (add wins): every add puts the element under a fresh
 * random tag, a remove tombstones the tags of that element the writer saw, and a merge keeps
 * every tag no writer removed (resolvers/tags.ts, the core the cart uses too). So an add is never
 * lost, a removal sticks whatever stale copy comes back, and when one writer removes an element
 * while another adds it again, the add wins. Elements are equal when their canonical JSON is.
 */
import { canonical, compareText } from '../canonical.js';
import { TesseraError } from '../errors.js';
import type { SchemaIssue, StandardSchemaV1 } from '../schema.js';
import { entryIssues, isJson, isRecord, schemaIssues } from './checks.js';
import { type Crdt, type CrdtUpdater, defineCrdt } from './crdt.js';
import {
  keptTombstones,
  knowsTag,
  mergeTagged,
  newTag,
  sortedEntries,
  type Tagged,
  TOMBSTONES_MAX,
  tombstone,
} from './tags.js';

export interface ORSet<E> {
  /** Tag → element: every live add. */
  readonly elements: Readonly<Record<string, E>>;
  /** Tag → when it was removed (ms since the epoch, the remover's clock). */
  readonly removed: Readonly<Record<string, number>>;
}

export interface ORSetOptions<E> {
  /** Checks every element (any synchronous Standard Schema: zod, valibot, …). */
  readonly element?: StandardSchemaV1<unknown, E>;
  /** Tombstones kept at most, the most recent. Default 1000. */
  readonly tombstonesMax?: number;
}

export interface ORSetOpOptions {
  /** The new add's tag; default 72 random bits, drawn when the updater is made. */
  readonly tag?: string;
  /** The clock for tombstones, ms since the epoch; default Date.now. */
  readonly now?: () => number;
}

export interface ORSetCrdt<E> extends Crdt<ORSet<E>, E[]> {
  empty(): ORSet<E>;
  /** Updater: adds `element` (replacing the adds of it this writer sees). */
  add(element: E, options?: ORSetOpOptions): CrdtUpdater<ORSet<E>>;
  /** Updater: removes `element`: every add of it this writer sees. Adds it did not see survive. */
  remove(element: E, options?: ORSetOpOptions): CrdtUpdater<ORSet<E>>;
  /** Updater: removes every element this writer sees. */
  clear(options?: ORSetOpOptions): CrdtUpdater<ORSet<E>>;
  /** The distinct elements, in canonical JSON order. */
  values(set: ORSet<E> | undefined): E[];
  has(set: ORSet<E> | undefined, element: E): boolean;
}

/** An observed-remove set whose elements are `E` (checked by `options.element` if given). */
export function orSet<E = unknown>(options: ORSetOptions<E> = {}): ORSetCrdt<E> {
  const max = options.tombstonesMax ?? TOMBSTONES_MAX;
  const build = ({ entries, removed }: Tagged<E>): ORSet<E> => ({
    elements: Object.fromEntries(sortedEntries(entries)),
    removed: Object.fromEntries(keptTombstones(removed, max)),
  });
  const parts = (set: ORSet<E>) => ({ entries: set.elements, removed: set.removed });
  const merge = (sets: readonly ORSet<E>[]) => build(mergeTagged(sets.map(parts)));
  const drop = (set: ORSet<E> | undefined, matches: (e: E) => boolean, now: () => number) =>
    build(tombstone(parts(set ?? empty()), matches, now()));
  const same = (element: E) => {
    const text = canonical(element);
    return (e: E) => canonical(e) === text;
  };
  return {
    ...defineCrdt({ name: 'an OR-set', merge, issues: (v) => orSetIssues(v, options.element), view: values }),
    empty,
    add: (element, op = {}) => {
      checkElement(element);
      const tag = op.tag ?? newTag();
      return (current) => {
        if (current !== undefined && knowsTag(parts(current), tag)) return merge([current]);
        const next = tombstone(parts(current ?? empty()), same(element), (op.now ?? Date.now)());
        next.entries.set(tag, element);
        return build(next);
      };
    },
    remove:
      (element, op = {}) =>
      (current) =>
        drop(current, same(element), op.now ?? Date.now),
    clear:
      (op = {}) =>
      (current) =>
        drop(current, () => true, op.now ?? Date.now),
    values,
    has: (set, element) => Object.values(set?.elements ?? {}).some(same(element)),
  };
}

function empty<E>(): ORSet<E> {
  return { elements: {}, removed: {} };
}

function values<E>(set: ORSet<E> | undefined): E[] {
  const distinct = new Map<string, E>();
  for (const element of Object.values(set?.elements ?? {})) distinct.set(canonical(element), element);
  return [...distinct.entries()].sort(([a], [b]) => compareText(a, b)).map(([, e]) => e);
}

function orSetIssues(value: unknown, element: StandardSchemaV1 | undefined): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: 'An OR-set is an object { elements, removed }.' }];
  const found = entryIssues(value.elements, ['elements'], 'an element', (e) =>
    isJson(e) ? undefined : 'is a JSON value.',
  );
  if (isRecord(value.elements)) {
    for (const [tag, e] of Object.entries(value.elements))
      found.push(...schemaIssues(element, e, ['elements', tag]));
  }
  const time = (at: unknown) =>
    typeof at === 'number' && Number.isFinite(at) ? undefined : 'is a time in ms.';
  return [...found, ...entryIssues(value.removed, ['removed'], 'a tombstone', time)];
}

function checkElement(element: unknown): void {
  if (!isJson(element)) {
    throw new TesseraError(
      'INVALID_ARGUMENT',
      'An OR-set element is a JSON value (no undefined, NaN, Set, Date…).',
    );
  }
}
