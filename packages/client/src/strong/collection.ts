/**
 * A strong collection (`client.strong('stock')`): the keys `namespace/id` of a strong namespace,
 * with values of one type, read and written with versions and conditions, optionally validated by
 * a schema on the way in (VALIDATION_FAILED) and out (INVALID_STORED_VALUE), and the builders of
 * transaction actions on them. See calls.ts for the HTTP calls and what is retried.
 */
import { TesseraError } from '../errors.js';
import { transient } from '../http/retry.js';
import type { CallOptions } from '../kv.js';
import { whole } from '../options.js';
import { runRounds } from '../rounds.js';
import { checkIn, checkInNow, checkStored, type StandardSchemaV1 } from '../schema.js';
import type { StrongCalls, StrongRead, StrongWriteResult } from './calls.js';
import { checkNamespace, type TransactCondition } from './conditions.js';
import type { TransactCheck, TransactDelete, TransactPut } from './transact.js';

/** Rounds after the first of a strong update, by default: contention ends rounds in PRECONDITION_FAILED. */
export const STRONG_UPDATE_RETRIES = 10;

export interface StrongOptions<T> {
  /** Any Standard Schema (zod, valibot, arktype): values are checked going in and coming out. */
  readonly schema?: StandardSchemaV1<unknown, T> | undefined;
}

/** A strong key's value and the version it has. */
export interface StrongValue<T> {
  readonly value: T;
  readonly version: string;
}

export interface StrongPutOptions extends CallOptions {
  /**
   * Write only if the key's version is this one, else PRECONDITION_FAILED (details.currentVersion).
   * Retried after a failure that may have applied it (it cannot apply twice); so a
   * PRECONDITION_FAILED with `maybeApplied: true` may mean that this very write applied.
   */
  readonly ifVersion?: string | undefined;
  /** Write only if the key has no value (never written, or deleted); else PRECONDITION_FAILED. */
  readonly ifAbsent?: boolean | undefined;
}

export interface StrongDeleteOptions extends CallOptions {
  /** Delete only if the key's version is this one; else PRECONDITION_FAILED (as for put). */
  readonly ifVersion?: string | undefined;
}

export interface StrongUpdateOptions extends Omit<CallOptions, 'retries'> {
  /** Rounds to start over after PRECONDITION_FAILED (another writer won) or a transient failure. Default 10. */
  readonly retries?: number;
  /**
   * Whether `fn` may be applied again on top of its own write (default false). A round whose write
   * may have applied (a dropped connection; a PRECONDITION_FAILED after one) ends the update with
   * `maybeApplied: true`, unless this is true: then the update starts over from a fresh read.
   */
  readonly idempotent?: boolean;
}

export interface StrongUpdateResult<T> {
  /** The value written; undefined when `fn` deleted the key (or left a key with no value as is). */
  readonly value: T | undefined;
  /** The key's version after the update. */
  readonly version: string;
}

/** The change of a strong update: the new value, or undefined to delete the key. */
export type StrongUpdater<T> = (current: T | undefined) => T | undefined | Promise<T | undefined>;

type TypedRead<T> = Exclude<StrongRead, { found: true }> | { found: true; value: T; version: string };

export class StrongCollection<T = unknown> {
  constructor(
    private readonly calls: StrongCalls,
    readonly namespace: string,
    private readonly options: StrongOptions<T> = {},
  ) {
    checkNamespace(namespace);
  }

  /** The key of an id: `namespace/id`. */
  key(id: string): string {
    if (typeof id !== 'string' || id.length === 0) {
      throw new TesseraError('INVALID_ARGUMENT', 'A strong collection id is a non-empty string.');
    }
    return `${this.namespace}/${id}`;
  }

  /** The value and its version; undefined when the key has no value. */
  async get(id: string, options?: CallOptions): Promise<StrongValue<T> | undefined> {
    const read = await this.read(this.key(id), options);
    return read.found ? { value: read.value, version: read.version } : undefined;
  }

  /**
   * Writes `value` (validated), unconditionally or `{ ifVersion }` / `{ ifAbsent: true }`; a
   * condition that does not hold is PRECONDITION_FAILED (`details.currentVersion`), nothing written.
   * Retries: without a condition the write is not sent again after a failure that may have applied
   * it (a dropped connection, a timeout, a 5xx), like a plain put, since a copy would apply a second
   * time. With one it is: a copy cannot apply twice. But when the first attempt did apply, the copy
   * fails the condition, so a PRECONDITION_FAILED with `maybeApplied: true` may mean this write
   * landed; read the key to know. One with `maybeApplied: false` surely changed nothing.
   */
  async put(id: string, value: T, options: StrongPutOptions = {}): Promise<StrongWriteResult> {
    const key = this.key(id);
    return this.calls.put(key, await this.checkIn(key, value), options);
  }

  /**
   * Deletes the value (a key with none: its version unchanged), unconditionally or `{ ifVersion }`;
   * retried as `put` is (a PRECONDITION_FAILED with `maybeApplied: true` may follow its own success).
   */
  async delete(id: string, options: StrongDeleteOptions = {}): Promise<StrongWriteResult> {
    return this.calls.delete(this.key(id), options);
  }

  /**
   * Reads the key, applies `fn` to its value (undefined when it has none) and writes the result
   * only if no one wrote the key meanwhile (`ifVersion` of the read, or `ifAbsent`); `fn` returning
   * undefined deletes the key the same way. After PRECONDITION_FAILED (another writer came first)
   * or a transient failure it starts over with a fresh read and jittered backoff, up to `retries`
   * times and within `deadlineMs`. A round whose write may have applied ends the update
   * (`maybeApplied: true`) unless `idempotent: true` (see StrongUpdateOptions).
   */
  async update(
    id: string,
    fn: StrongUpdater<T>,
    options: StrongUpdateOptions = {},
  ): Promise<StrongUpdateResult<T>> {
    const key = this.key(id);
    const idempotent = options.idempotent ?? false;
    const { backoff, deadlineMs } = this.calls.settings;
    const rounds = {
      retries: whole('retries', options.retries, STRONG_UPDATE_RETRIES, 0),
      deadlineMs:
        options.deadlineMs === undefined ? deadlineMs : whole('deadlineMs', options.deadlineMs, 1, 1),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      backoff,
      again: (f: TesseraError) =>
        (f.code === 'PRECONDITION_FAILED' || transient(f)) && (idempotent || !f.maybeApplied),
    };
    return runRounds(key, rounds, async (call) => {
      const read = await this.read(key, call);
      const next = await fn(read.found ? read.value : undefined);
      if (next === undefined) {
        if (!read.found) return { value: undefined, version: read.version };
        return { value: undefined, ...(await this.calls.delete(key, { ...call, ifVersion: read.version })) };
      }
      const value = await this.checkIn(key, next);
      const condition = read.found ? { ifVersion: read.version } : { ifAbsent: true };
      return { value, ...(await this.calls.put(key, value, { ...call, ...condition })) };
    });
  }

  /** A transaction's put of `value` (validated now: a schema that validates asynchronously cannot be used). */
  putAction(id: string, value: T, condition?: TransactCondition): TransactPut {
    const key = this.key(id);
    const schema = this.options.schema;
    const checked = schema === undefined ? value : checkInNow(schema, value, key, this.owner);
    return { type: 'put', key, value: checked, ...(condition === undefined ? {} : { condition }) };
  }

  /** A transaction's delete of the key. */
  deleteAction(id: string, condition?: TransactCondition): TransactDelete {
    return { type: 'delete', key: this.key(id), ...(condition === undefined ? {} : { condition }) };
  }

  /** A transaction's check that the key's condition holds (the transaction is canceled if not). */
  checkAction(id: string, condition: TransactCondition): TransactCheck {
    return { type: 'conditionCheck', key: this.key(id), condition };
  }

  /** A read with its value checked against the schema (without one, taken to be a T). */
  private async read(key: string, options?: CallOptions): Promise<TypedRead<T>> {
    const read = await this.calls.read(key, options);
    const schema = this.options.schema;
    if (!read.found) return read;
    if (schema === undefined) return { ...read, value: read.value as T };
    return { ...read, value: await checkStored(schema, read.value, key, this.owner) };
  }

  private async checkIn(key: string, value: T): Promise<T> {
    const schema = this.options.schema;
    return schema === undefined ? value : checkIn(schema, value, key, this.owner);
  }

  /** Who the schema belongs to, for error messages. */
  private get owner(): string {
    return `strong namespace "${this.namespace}"`;
  }
}
