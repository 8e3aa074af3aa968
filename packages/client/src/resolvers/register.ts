/**
 * A last-writer-wins register whose writers stamp their own writes: `{ value, at, by }`, where
 * `at` is the writer's clock (ms) and `by` the writer's id, the tie-break. A merge keeps the
 * largest (at, by), and on a full tie (one writer, one millisecond, two values) the value with
 * the larger canonical JSON, so every client picks the same one.
 *
 * Why the writer's stamp and not the node's `lastModified` (which resolvers.lww() uses): a
 * register nested in a map has no `lastModified` of its own, only the whole value does, and a
 * value written back by a resolver gets the time of that merge, not of the write it kept. The
 * stamp also respects causality: `set` stamps max(now, seen.at + 1), so a write made after
 * reading a value beats it even when the writer's clock is behind. Between concurrent writes the
 * later clock wins, as with any wall clock: skew can make the "later" one the earlier.
 */
import { canonical, compareText } from '../canonical.js';
import { TesseraError } from '../errors.js';
import type { SchemaIssue, StandardSchemaV1 } from '../schema.js';
import { checkActor, isJson, isRecord, schemaIssues } from './checks.js';
import { type Crdt, type CrdtUpdater, defineCrdt } from './crdt.js';
import { newTag } from './tags.js';

export interface LwwRegister<V> {
  readonly value: V;
  /** When it was written: the writer's clock, ms since the epoch (or any growing number). */
  readonly at: number;
  /** Who wrote it: the tie-break between equal `at`. */
  readonly by: string;
}

export interface LwwRegisterOptions<V> {
  /** Checks the value (any synchronous Standard Schema). */
  readonly value?: StandardSchemaV1<unknown, V>;
}

export interface LwwSetOptions {
  /** The writer's id; default 72 random bits drawn when the updater is made. */
  readonly actor?: string;
  /** The writer's clock, ms since the epoch; default Date.now. */
  readonly now?: () => number;
}

export interface LwwRegisterCrdt<V> extends Crdt<LwwRegister<V>, V | undefined> {
  /** Updater: writes `value`, stamped after the value it replaces. */
  set(value: V, options?: LwwSetOptions): CrdtUpdater<LwwRegister<V>>;
  /** The value (undefined for no register). */
  get(register: LwwRegister<V> | undefined): V | undefined;
}

export function lwwRegister<V = unknown>(options: LwwRegisterOptions<V> = {}): LwwRegisterCrdt<V> {
  const get = (register: LwwRegister<V> | undefined) => register?.value;
  return {
    ...defineCrdt({
      name: 'an LWW register',
      merge,
      issues: (v) => registerIssues(v, options.value),
      view: get,
    }),
    set: (value, op = {}) => {
      if (!isJson(value)) {
        throw new TesseraError(
          'INVALID_ARGUMENT',
          'A register value is a JSON value (no undefined, NaN, Date…).',
        );
      }
      if (op.actor !== undefined) checkActor(op.actor);
      const by = op.actor ?? newTag();
      const now = op.now ?? Date.now;
      return (current) => ({ value, at: Math.max(now(), current === undefined ? 0 : current.at + 1), by });
    },
    get,
  };
}

function merge<V>(registers: readonly LwwRegister<V>[]): LwwRegister<V> {
  if (registers.length === 0) throw new RangeError('An LWW register merge needs at least one value.');
  const { value, at, by } = registers.reduce((best, r) => (later(r, best) ? r : best));
  return { value, at, by };
}

function later<V>(a: LwwRegister<V>, b: LwwRegister<V>): boolean {
  if (a.at !== b.at) return a.at > b.at;
  if (a.by !== b.by) return compareText(a.by, b.by) > 0;
  return compareText(canonical(a.value), canonical(b.value)) > 0;
}

function registerIssues(value: unknown, schema: StandardSchemaV1 | undefined): SchemaIssue[] {
  if (!isRecord(value)) return [{ message: 'An LWW register is an object { value, at, by }.' }];
  const found: SchemaIssue[] = [];
  if (!('value' in value) || !isJson(value.value))
    found.push({ message: 'value must be JSON.', path: ['value'] });
  else found.push(...schemaIssues(schema, value.value, ['value']));
  if (typeof value.at !== 'number' || !Number.isFinite(value.at)) {
    found.push({ message: 'at must be a finite number.', path: ['at'] });
  }
  if (typeof value.by !== 'string') found.push({ message: 'by must be a string.', path: ['by'] });
  return found;
}
