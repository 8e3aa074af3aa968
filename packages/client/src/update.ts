/**
 * Read-merge-modify-write (Voldemort's applyUpdate, with Dynamo's contexts): read the key, merge
 * its siblings with the resolver, apply `fn`, write with the read's context. A concurrent writer
 * does not make the write fail: its version stays as a sibling, and the next read merges it.
 *
 * Retried (with a fresh read, up to `retries` times): TOO_MANY_SIBLINGS, CLOCK_TOO_LARGE (the
 * fresh read's context may name a coordinator already in the key's vector), and every transient
 * failure (no node reachable, overloaded, not enough replicas, timeouts). A failure after which
 * the write may have been applied is retried only when `fn` is idempotent (the default): the
 * fresh read may already hold the earlier write, and `fn` is applied on top of it again. Cart
 * updaters and union-style adds are idempotent; a counter increment is not.
 *
 * `deadlineMs` bounds the whole update: every read, write and backoff. When the update gives up
 * (retries spent, or the deadline passed), it reports the most informative failure of all its
 * rounds (retry.ts), with `maybeApplied` true if any round's write may have landed.
 */
import type { TesseraError } from './errors.js';
import { type BackoffOptions, transient } from './http/retry.js';
import {
  type GetResult,
  mergeSiblings,
  type PutResult,
  type ReadOptions,
  type WriteOptions,
  type WriteReceipt,
} from './kv.js';
import type { Resolver } from './resolvers/types.js';
import { runRounds } from './rounds.js';

export interface UpdateOptions<T> extends Omit<ReadOptions, 'retries'>, Pick<WriteOptions, 'w'> {
  /** Merges siblings; without it, more than one sibling fails with SIBLINGS_UNRESOLVED. */
  readonly resolver?: Resolver<T> | undefined;
  /** How many times to start over after a failure worth retrying. Default 5. */
  readonly retries?: number;
  /**
   * Whether `fn` may be applied again on top of its own earlier write (default true). When false,
   * a failure that may have applied the write is thrown (maybeApplied: true) instead of retried.
   */
  readonly idempotent?: boolean;
}

export interface UpdateResult<T> {
  /** The value written. */
  readonly value: T;
  /** Its context. */
  readonly context: string;
  /** How the write was stored (see `PutResult`); undefined from a node too old to say. */
  readonly stored?: WriteReceipt | undefined;
}

export type Updater<T> = (current: T | undefined) => T | Promise<T>;

export interface UpdateSteps<T> {
  read(key: string, options: ReadOptions): Promise<GetResult<T>>;
  write(key: string, value: T, options: WriteOptions): Promise<PutResult>;
  readonly backoff: BackoffOptions;
}

export async function runUpdate<T>(
  steps: UpdateSteps<T>,
  key: string,
  fn: Updater<T>,
  options: UpdateOptions<T> = {},
): Promise<UpdateResult<T>> {
  const idempotent = options.idempotent ?? true;
  const rounds = {
    retries: options.retries ?? 5,
    deadlineMs: options.deadlineMs,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    backoff: steps.backoff,
    again: (failure: TesseraError) => worthRetrying(failure, idempotent),
  };
  return runRounds(key, rounds, async (call) => {
    const read = await steps.read(key, { ...call, ...(options.r === undefined ? {} : { r: options.r }) });
    const current = mergeSiblings(read, options.resolver);
    const value = await fn(current);
    const { context, stored } = await steps.write(key, value, {
      ...call,
      context: read.context,
      ...(options.w === undefined ? {} : { w: options.w }),
    });
    return stored === undefined ? { value, context } : { value, context, stored };
  });
}

/** SIBLINGS_UNRESOLVED, bad input, and a non-idempotent write that may have landed end the update. */
function worthRetrying(err: TesseraError, idempotent: boolean): boolean {
  if (err.code === 'TOO_MANY_SIBLINGS' || err.code === 'CLOCK_TOO_LARGE') return true;
  if (!transient(err)) return false;
  return idempotent || !err.maybeApplied;
}
