/**
 * When a failed call may be sent again, how long to wait first, and which of several failures
 * to report.
 *
 * | failure                                                          | get, strong get, transactGet | put; delete without context; strong put or delete without condition | delete with context; strong write with condition; transact |
 * | ---------------------------------------------------------------- | ---------------------------- | -------------------------------------------------------------------- | ---------------------------------------------------------- |
 * | NODE_UNREACHABLE (not sent: no connection, or a browser's refusal) | yes                          | yes                                                                  | yes                                                        |
 * | 503 NODE_NOT_READY, OVERLOADED, NODE_LEFT, NODE_FENCED (refused) | yes                          | yes                                                                  | yes                                                        |
 * | CONNECTION_FAILED, REQUEST_TIMEOUT                               | yes                          | no: may have been applied                                            | yes                                                        |
 * | 503 INSUFFICIENT_REPLICAS, PEER_UNAVAILABLE, 504 TIMEOUT         | once, on another node        | no: may have been applied                                            | once, on another node                                      |
 * | 503 STRONG_UNAVAILABLE, other 5xx, BAD_RESPONSE with a 5xx       | yes                          | no: may have been applied                                            | yes                                                        |
 * | 4xx, 501 NOT_SUPPORTED, INVALID_VALUE (raised before sending)    | no                           | no                                                                   | no                                                         |
 *
 * A put that may have been applied must not be sent again blindly: without a context the copy
 * becomes a second sibling (the same item twice in a list, a counter bumped twice); with a context
 * the two copies become two concurrent siblings. A delete with a context writes only a tombstone,
 * and a second tombstone for the same context changes nothing, so it is safe. A delete without a
 * context deletes whatever a read sees at the time, which may include a put made in between.
 * `update` re-reads and re-applies instead (see update.ts).
 *
 * Strong keys (strong/): a put or delete without a condition is like a plain put: sent again after
 * it applied, it would apply a second time, after writes made in between. One with a condition
 * (If-Match, If-None-Match) cannot apply twice: a copy sent after the first applied fails the
 * condition, so a retry is safe, but its answer may then be PRECONDITION_FAILED although the write
 * did apply (the error says `maybeApplied: true`). A transaction carries a clientRequestToken, the
 * same on every attempt: the node answers a repeat with the first attempt's outcome, so a retry is
 * safe and its answer is the truth (an error answer after a failure that may have applied says
 * `maybeApplied: false`: see `answersFirstOutcome`).
 *
 * INSUFFICIENT_REPLICAS, PEER_UNAVAILABLE and TIMEOUT are a coordinator's verdict on the key's
 * replicas, not on itself: every coordinator asks the same replicas, so another one can only do
 * better when the first is cut off from replicas the second reaches (a network partition), or
 * still counts a replica as down that is back. The call asks one other node, then stops: two
 * verdicts agree (an r=3 read with a replica down gets INSUFFICIENT_REPLICAS after two attempts,
 * not after every retry). 4xx answers (bad input, TOO_MANY_SIBLINGS, CLOCK_TOO_LARGE, …) are the
 * same on every node; `update` starts over after TOO_MANY_SIBLINGS and CLOCK_TOO_LARGE with a
 * fresh read, which can change them.
 *
 * When a call fails after several attempts (retries spent, or its deadline passed), it reports
 * the most informative failure, not the last: a node's verdict on the key, then any other answer
 * of a node, then a failure after the request was sent, then a refusal before it was. Its
 * `maybeApplied` is true when any attempt may have applied the write, and `attempts` counts them
 * all.
 */
import { TesseraError } from '../errors.js';

/**
 * How a request may be retried; see the table above. `conditional`: a strong write with a
 * condition; `token`: a transaction, whose token makes a repeat answer the first outcome.
 */
export type Safety = 'read' | 'write' | 'tombstone' | 'conditional' | 'token';

/** Server codes that mean the node refused the request before doing any work. */
const REFUSED_BEFORE_WORK = new Set(['NODE_NOT_READY', 'OVERLOADED', 'NODE_LEFT', 'NODE_FENCED']);

/** A coordinator's answer about the key's replicas: another coordinator asks the same ones. */
const VERDICTS = new Set(['INSUFFICIENT_REPLICAS', 'PEER_UNAVAILABLE', 'TIMEOUT']);

/** 5xx answers that no node of this version would answer differently, and that did nothing. */
const FINAL_5XX = new Set(['NOT_SUPPORTED']);

export function refusedBeforeWork(err: TesseraError): boolean {
  return err.code === 'NODE_UNREACHABLE' || REFUSED_BEFORE_WORK.has(err.code);
}

/** A coordinator's verdict on the key's replicas (see the table above). */
export function verdict(err: TesseraError): boolean {
  return VERDICTS.has(err.code) && err.httpStatus !== undefined;
}

/** True when the failure may be from a write that was (partly) applied. */
export function maybeApplied(err: TesseraError): boolean {
  if (refusedBeforeWork(err) || FINAL_5XX.has(err.code)) return false;
  if (err.code === 'CONNECTION_FAILED' || err.code === 'REQUEST_TIMEOUT') return true;
  return err.httpStatus !== undefined && err.httpStatus >= 500;
}

/** Whether the failure is transient: another attempt (maybe on another node) can succeed. */
export function transient(err: TesseraError): boolean {
  return refusedBeforeWork(err) || maybeApplied(err);
}

export function retryable(err: TesseraError, safety: Safety): boolean {
  if (!transient(err)) return false;
  if (safety === 'write') return refusedBeforeWork(err);
  return true;
}

/**
 * Whether a node's definite answer (not a transient failure) to a repeated request tells the
 * outcome of every attempt: true for a transaction, whose token makes the node answer a repeat
 * with the first attempt's outcome; so an error answer after a timeout means nothing applied.
 */
export function answersFirstOutcome(err: TesseraError, safety: Safety): boolean {
  const nodeAnswer = err.httpStatus !== undefined && err.code !== 'BAD_RESPONSE';
  return safety === 'token' && nodeAnswer && err.httpStatus < 500;
}

/** Whether the failure says something about the node itself (so routing should avoid it). */
export function nodeFailed(err: TesseraError): boolean {
  return (
    err.code === 'NODE_UNREACHABLE' ||
    err.code === 'CONNECTION_FAILED' ||
    err.code === 'REQUEST_TIMEOUT' ||
    REFUSED_BEFORE_WORK.has(err.code)
  );
}

/**
 * How much a failure tells about the call's key: a verdict on its replicas (4), another answer
 * of a node (3), a non-API answer (2), no answer after the request was sent (1), nothing sent (0).
 */
export function informativeness(err: TesseraError): number {
  if (verdict(err)) return 4;
  if (err.code === 'BAD_RESPONSE') return 2;
  if (err.httpStatus !== undefined) return 3;
  if (err.code === 'CONNECTION_FAILED' || err.code === 'REQUEST_TIMEOUT') return 1;
  return 0;
}

/**
 * The failure to report for a call that failed `errors.length` times (at least once), in order:
 * the most informative, the latest of equals; with every attempt counted, `maybeApplied` if any
 * attempt may have applied the write, and the others (and `why` the call stopped) in its message.
 */
export function mostInformative(
  errors: readonly TesseraError[],
  facts: { readonly attempts: number; readonly why?: string | undefined; readonly others?: string },
): TesseraError {
  let best = errors[0]!;
  for (const err of errors) if (informativeness(err) >= informativeness(best)) best = err;
  const others = errors.filter((e) => e !== best);
  const parts: string[] = [];
  if (facts.why !== undefined) parts.push(facts.why);
  if (others.length > 0) {
    const counts = new Map<string, number>();
    for (const e of others) {
      const label = `${e.nodeId ?? e.node ?? 'client'} ${e.code}`;
      counts.set(label, (counts.get(label) ?? 0) + 1);
    }
    const list = [...counts].map(([label, n]) => (n === 1 ? label : `${label} (${n} times)`));
    parts.push(`${facts.others ?? 'Other attempts'}: ${list.join(', ')}.`);
  }
  return rebuild(best, {
    attempts: facts.attempts,
    maybeApplied: errors.some((e) => e.maybeApplied),
    ...(parts.length === 0 ? {} : { message: `${best.message} ${parts.join(' ')}` }),
  });
}

/** A copy of `err` (its code, status, node, details, cause) with other facts, message or details. */
export function rebuild(
  err: TesseraError,
  changes: {
    readonly message?: string;
    readonly attempts?: number;
    readonly maybeApplied?: boolean;
    readonly nodeId?: string | undefined;
    readonly key?: string | undefined;
    readonly details?: Readonly<Record<string, unknown>> | undefined;
  },
): TesseraError {
  return new TesseraError(err.code, changes.message ?? err.message, {
    httpStatus: err.httpStatus,
    node: err.node,
    nodeId: changes.nodeId ?? err.nodeId,
    key: changes.key ?? err.key,
    maybeApplied: changes.maybeApplied ?? err.maybeApplied,
    attempts: changes.attempts ?? err.attempts,
    retryAfterMs: err.retryAfterMs,
    details: changes.details ?? err.details,
    cause: err.cause,
  });
}

export interface BackoffOptions {
  /** The first retry waits up to this, in ms. Default 25. */
  readonly baseMs?: number;
  /** No wait is longer than this, in ms. Default 1000. */
  readonly maxMs?: number;
}

/** "Full jitter": a uniform wait in [0, min(max, base * 2^retry)), so clients do not retry in step. */
export function backoffMs(retry: number, options: BackoffOptions = {}, random = Math.random): number {
  const base = options.baseMs ?? 25;
  const max = options.maxMs ?? 1_000;
  return Math.floor(random() * Math.min(max, base * 2 ** Math.min(retry, 20)));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A deadline in ms since the epoch, or none. */
export class Deadline {
  private readonly at: number | undefined;

  constructor(
    readonly ms: number | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.at = ms === undefined ? undefined : now() + ms;
  }

  /** Time left in ms (Infinity without a deadline; 0 or less once passed). */
  remaining(): number {
    return this.at === undefined ? Number.POSITIVE_INFINITY : this.at - this.now();
  }

  passed(): boolean {
    return this.remaining() <= 0;
  }

  /** Why a call stopped at its deadline, for the error's message. */
  why(attempts: number, what = 'call'): string {
    return `The ${what}'s deadline (deadlineMs ${this.ms}) passed after ${attempts} attempt${attempts === 1 ? '' : 's'}.`;
  }
}
