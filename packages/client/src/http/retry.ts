/**
 * When a failed call may be sent again, and how long to wait first.
 *
 * | failure                                              | get | put (with or without context) | delete with context | delete without context |
 * | ---------------------------------------------------- | --- | ----------------------------- | ------------------- | ---------------------- |
 * | NODE_UNREACHABLE (no connection was made)            | yes | yes                           | yes                 | yes                    |
 * | 503 NODE_NOT_READY, OVERLOADED (refused before work) | yes | yes                           | yes                 | yes                    |
 * | CONNECTION_FAILED, REQUEST_TIMEOUT                   | yes | no: may have been applied     | yes                 | no                     |
 * | 503 INSUFFICIENT_REPLICAS, PEER_UNAVAILABLE, 504, 5xx | yes | no: may have been applied     | yes                 | no                     |
 * | 4xx (bad input, TOO_MANY_SIBLINGS, …)                | no  | no                            | no                  | no                     |
 *
 * A put that may have been applied must not be sent again blindly: without a context the copy
 * becomes a second sibling (the same item twice in a list, a counter bumped twice); with a context
 * the two copies become two concurrent siblings. A delete with a context writes only a tombstone,
 * and a second tombstone for the same context changes nothing, so it is safe. A delete without a
 * context deletes whatever a read sees at the time, which may include a put made in between.
 * `update` re-reads and re-applies instead (see update.ts).
 */
import type { TesseraError } from '../errors.js';

/** How a request may be retried; see the table above. */
export type Safety = 'read' | 'write' | 'tombstone';

/** Server codes that mean the node refused the request before doing any work. */
const REFUSED_BEFORE_WORK = new Set(['NODE_NOT_READY', 'OVERLOADED']);

export function refusedBeforeWork(err: TesseraError): boolean {
  return err.code === 'NODE_UNREACHABLE' || REFUSED_BEFORE_WORK.has(err.code);
}

/** True when the failure may be from a write that was (partly) applied. */
export function maybeApplied(err: TesseraError): boolean {
  if (refusedBeforeWork(err)) return false;
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

/** Whether the failure says something about the node itself (so routing should avoid it). */
export function nodeFailed(err: TesseraError): boolean {
  return (
    err.code === 'NODE_UNREACHABLE' ||
    err.code === 'CONNECTION_FAILED' ||
    err.code === 'REQUEST_TIMEOUT' ||
    REFUSED_BEFORE_WORK.has(err.code)
  );
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
