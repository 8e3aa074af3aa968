/**
 * Maps of CRDTs, merged field by field: `crdtMap(fields)` for a record whose every field has its
 * own CRDT (a profile of LWW registers, with a counter and a set beside them), and
 * `crdtMapOf(crdt)` for any number of keys that all hold the same CRDT (a counter per product).
 * A field absent from a value is one nobody wrote yet; a merge merges each field over the values
 * that have it. Fields are never removed (reset them with their own CRDT: set a register to null,
 * clear a set). A field a crdtMap() does not declare (written by a newer version of the app) is
 * kept, merged by taking its largest canonical JSON: deterministic, but not that field's CRDT.
 */
import { canonical, compareText } from '../canonical.js';
import type { SchemaIssue } from '../schema.js';
import { isRecord, sortedRecord, under } from './checks.js';
import {
  type AnyCrdt,
  type Crdt,
  type CrdtUpdater,
  defineCrdt,
  loosely,
  type StateOf,
  type ViewOf,
} from './crdt.js';

export type CrdtFields = Readonly<Record<string, AnyCrdt>>;

/** A stored map: each declared field, when written, holds its CRDT's value. */
export type CrdtMapValue<F extends CrdtFields> = { readonly [K in keyof F]?: StateOf<F[K]> };
/** Its plain reading: every declared field's reading. */
export type CrdtMapView<F extends CrdtFields> = { readonly [K in keyof F]: ViewOf<F[K]> };
/** Updaters per field, as the fields' CRDTs make them (`counter.increment(actor)`, `name.set('Ada')`). */
export type CrdtFieldUpdaters<F extends CrdtFields> = {
  readonly [K in keyof F]?: CrdtUpdater<StateOf<F[K]>>;
};

export interface CrdtMapCrdt<F extends CrdtFields> extends Crdt<CrdtMapValue<F>, CrdtMapView<F>> {
  readonly fields: F;
  /** Updater: applies each field's updater to that field. */
  change(updaters: CrdtFieldUpdaters<F>): CrdtUpdater<CrdtMapValue<F>>;
}

export function crdtMap<const F extends CrdtFields>(fields: F): CrdtMapCrdt<F> {
  const crdtOf = (key: string): AnyCrdt | undefined => (Object.hasOwn(fields, key) ? fields[key] : undefined);
  const view = (value: CrdtMapValue<F> | undefined) =>
    Object.fromEntries(
      Object.entries(fields).map(([key, crdt]) => [key, loosely(crdt).view(value?.[key])]),
    ) as CrdtMapView<F>;
  return {
    ...defineCrdt({
      name: 'a CRDT map',
      merge: (values) => mergeFields(values, crdtOf) as CrdtMapValue<F>,
      issues: (value) => fieldIssues(value, crdtOf),
      view,
    }),
    fields,
    change: (updaters) => (current) => changeFields(current, updaters) as CrdtMapValue<F>,
  };
}

export type CrdtMapOfValue<C extends AnyCrdt> = Readonly<Record<string, StateOf<C>>>;

export interface CrdtMapOfCrdt<C extends AnyCrdt> extends Crdt<CrdtMapOfValue<C>, Record<string, ViewOf<C>>> {
  /** The CRDT of every value. */
  readonly values: C;
  /** Updater: applies `updater` to the value under `key`. */
  change(key: string, updater: CrdtUpdater<StateOf<C>>): CrdtUpdater<CrdtMapOfValue<C>>;
}

export function crdtMapOf<C extends AnyCrdt>(values: C): CrdtMapOfCrdt<C> {
  const crdtOf = () => values;
  const view = (map: CrdtMapOfValue<C> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, loosely(values).view(v)])) as Record<
      string,
      ViewOf<C>
    >;
  return {
    ...defineCrdt({
      name: `a map of ${values.name.replace(/^an? /, '')}s`,
      merge: (maps) => mergeFields(maps, crdtOf) as CrdtMapOfValue<C>,
      issues: (value) => fieldIssues(value, crdtOf),
      view,
    }),
    values,
    change: (key, updater) => (current) => changeFields(current, { [key]: updater }) as CrdtMapOfValue<C>,
  };
}

type Lookup = (key: string) => AnyCrdt | undefined;

function mergeFields(values: readonly object[], crdtOf: Lookup): Record<string, unknown> {
  const byKey = new Map<string, unknown[]>();
  for (const value of values) {
    for (const [key, field] of Object.entries(value)) {
      if (field === undefined) continue;
      const list = byKey.get(key) ?? [];
      list.push(field);
      byKey.set(key, list);
    }
  }
  return sortedRecord([...byKey].map(([key, list]) => [key, mergeField(crdtOf(key), list)] as const));
}

function mergeField(crdt: AnyCrdt | undefined, list: unknown[]): unknown {
  if (crdt !== undefined) return loosely(crdt).merge(list);
  // Undeclared: the largest canonical JSON, a deterministic join.
  return list.reduce((best, v) => (compareText(canonical(v), canonical(best)) > 0 ? v : best));
}

function fieldIssues(value: unknown, crdtOf: Lookup): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: 'A CRDT map is an object of fields.' }];
  return Object.entries(value).flatMap(([key, field]) => {
    const crdt = crdtOf(key);
    return crdt === undefined || field === undefined ? [] : under([key], crdt.issues(field));
  });
}

function changeFields(
  current: object | undefined,
  updaters: Readonly<Record<string, ((current: never) => unknown) | undefined>>,
): Record<string, unknown> {
  const next = new Map<string, unknown>(Object.entries(current ?? {}));
  for (const [key, updater] of Object.entries(updaters)) {
    if (updater !== undefined) next.set(key, (updater as (current: unknown) => unknown)(next.get(key)));
  }
  return sortedRecord(next);
}
