/** Small checks shared by the CRDTs: JSON shapes, actor ids, element schemas, sorted records. */
import { compareText } from '../canonical.js';
import { TesseraError } from '../errors.js';
import type { SchemaIssue, StandardSchemaV1 } from '../schema.js';

export type Path = ReadonlyArray<PropertyKey>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value that survives JSON unchanged: null, booleans, finite numbers, strings, arrays, plain objects. */
export function isJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJson(v, depth + 1));
  if (!isRecord(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => isJson(v, depth + 1));
}

/** Issues of a record whose every entry must pass `check` (an object of entries at `path`). */
export function entryIssues(
  value: unknown,
  path: Path,
  what: string,
  check: (entry: unknown, key: string) => string | undefined,
): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: `${String(path[path.length - 1])} must be an object.`, path }];
  const issues: SchemaIssue[] = [];
  for (const [key, entry] of Object.entries(value)) {
    const problem = check(entry, key);
    if (problem !== undefined) issues.push({ message: `${what} ${problem}`, path: [...path, key] });
  }
  return issues;
}

/** Issues a nested value reports, moved under `path`. */
export function under(path: Path, issues: readonly SchemaIssue[]): SchemaIssue[] {
  return issues.map((issue) => ({ message: issue.message, path: [...path, ...(issue.path ?? [])] }));
}

/**
 * Checks one element with a Standard Schema (zod, valibot, …), synchronously: CRDT values are
 * checked inside merges, which cannot wait. An asynchronous schema is reported as an issue.
 */
export function schemaIssues(
  schema: StandardSchemaV1 | undefined,
  value: unknown,
  path: Path,
): SchemaIssue[] {
  if (schema === undefined) return [];
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    return [{ message: 'the element schema is asynchronous; CRDT values need a synchronous one.', path }];
  }
  return result.issues === undefined ? [] : under(path, result.issues);
}

/** An actor id: who makes a change (a device, a session, a worker). */
export function checkActor(actor: string): void {
  if (typeof actor !== 'string' || actor.length === 0 || actor.length > 128) {
    throw new TesseraError(
      'INVALID_ARGUMENT',
      'An actor id is a non-empty string of at most 128 characters.',
    );
  }
}

/** A record with its keys in canonical order, so equal values are equal JSON text. */
export function sortedRecord<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => compareText(a, b)));
}
