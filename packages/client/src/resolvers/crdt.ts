/**
 * A CRDT as Tessera uses it: a JSON value with a merge that is commutative, associative and
 * idempotent, so it can be a resolver. `defineCrdt` turns a merge, a shape check and a reading
 * into the resolver and the Standard Schema the client takes: the built-in counter, set, register
 * and map are made this way, and so is the Automerge adapter (a pattern for any CRDT library).
 */
import { TesseraError } from '../errors.js';
import { describeIssues, type SchemaIssue, type SchemaResult, type StandardSchemaV1 } from '../schema.js';
import type { Resolver } from './types.js';

/** A change to a CRDT value, for `update()`: from the current value (or none) to the next. */
export type CrdtUpdater<T> = (current: T | undefined) => T;

export interface CrdtDefinition<T, V> {
  /** What the values are, for messages: "a PN-counter". */
  readonly name: string;
  /** The join of one or more values: commutative, associative, idempotent, deterministic. */
  merge(values: readonly T[]): T;
  /** What is wrong with a value that should be one of these (empty when nothing). */
  issues(value: unknown): SchemaIssue[];
  /** The plain reading of a value (undefined: the key or field has none). */
  view(value: T | undefined): V;
}

export interface Crdt<T, V> extends CrdtDefinition<T, V> {
  is(value: unknown): value is T;
  /** Checks every sibling (RESOLVER_FAILED names the first bad one), then merges. */
  readonly resolver: Resolver<T>;
  /** For `client.collection(prefix, { schema, resolver })`. */
  readonly schema: StandardSchemaV1<T, T>;
}

/**
 * What a field of a map may be: a Crdt of whatever types (only methods, which TypeScript
 * compares loosely, so `Crdt<PNCounter, number>` fits).
 */
export interface AnyCrdt {
  readonly name: string;
  merge(values: readonly never[]): unknown;
  issues(value: unknown): SchemaIssue[];
  view(value: never): unknown;
}

/** The stored value of a Crdt. */
export type StateOf<C> = C extends { merge(values: readonly never[]): infer T } ? T : never;
/** The plain reading of a Crdt. */
export type ViewOf<C> = C extends { view(value: never): infer V } ? V : never;

export function defineCrdt<T, V>(definition: CrdtDefinition<T, V>): Crdt<T, V> {
  const { name, merge, issues, view } = definition;
  const is = (value: unknown): value is T => issues(value).length === 0;
  const resolver: Resolver<T> = (siblings) => {
    siblings.forEach((sibling, index) => {
      const found = issues(sibling);
      if (found.length > 0) {
        throw new TesseraError(
          'RESOLVER_FAILED',
          `Sibling ${index} is not ${name}: ${describeIssues(found)}`,
          { details: { sibling: index } },
        );
      }
    });
    return merge(siblings);
  };
  const schema: StandardSchemaV1<T, T> = {
    '~standard': {
      version: 1,
      vendor: 'tessera',
      validate(value: unknown): SchemaResult<T> {
        const found = issues(value);
        return found.length === 0 ? { value: value as T } : { issues: found };
      },
    },
  };
  return { name, merge, issues, view, is, resolver, schema };
}

/** Calls a field's Crdt on values of unknown type (the map checks them with `issues` first). */
export function loosely(crdt: AnyCrdt): CrdtDefinition<unknown, unknown> {
  return crdt as unknown as CrdtDefinition<unknown, unknown>;
}
