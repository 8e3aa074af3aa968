/**
 * The loop of an update: rounds of calls (a read and a write, say) started over after a failure
 * worth it, with jittered backoff between rounds, up to `retries` extra rounds and within
 * `deadlineMs` overall. When it gives up it reports the most informative failure of all its rounds
 * (retry.ts), with `maybeApplied` true if any round's write may have landed, and every HTTP attempt
 * counted. Used by `update` (plain keys, update.ts) and by a strong collection's `update`.
 */
import { TesseraError } from './errors.js';
import { type BackoffOptions, backoffMs, Deadline, mostInformative, rebuild, sleep } from './http/retry.js';

/** The options each call of a round gets: the caller's, with what is left of the deadline. */
export interface RoundCall {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly deadlineMs?: number;
}

export interface RoundsOptions {
  /** Rounds after the first, at most. */
  readonly retries: number;
  /** The whole loop's deadline, in ms; none when undefined. */
  readonly deadlineMs?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly backoff: BackoffOptions;
  /** Whether a round's failure (never ABORTED) starts another round; else it is thrown as is. */
  readonly again: (failure: TesseraError) => boolean;
}

/** Runs `round` until it returns, `again` says no, the retries are spent or the deadline passes. */
export async function runRounds<R>(
  key: string,
  options: RoundsOptions,
  round: (call: RoundCall) => Promise<R>,
): Promise<R> {
  const rounds = options.retries + 1;
  const deadline = new Deadline(options.deadlineMs);
  const call = (): RoundCall => ({
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    // Each call gets what is left of the update's deadline.
    ...(deadline.ms === undefined ? {} : { deadlineMs: Math.max(1, Math.ceil(deadline.remaining())) }),
  });
  const failures: TesseraError[] = [];
  let attempts = 0;
  const anyApplied = (): boolean => failures.some((f) => f.maybeApplied);
  const giveUp = (why?: string): TesseraError =>
    failures.length === 0
      ? new TesseraError('REQUEST_TIMEOUT', why ?? 'The update ran out of time.', { key, attempts: 0 })
      : mostInformative(failures, { attempts, why, others: 'Other rounds' });
  for (let n = 1; ; n++) {
    if (deadline.passed()) throw giveUp(deadline.why(n - 1, 'update'));
    try {
      return await round(call());
    } catch (err) {
      if (!TesseraError.is(err)) throw err;
      attempts += err.attempts;
      const failure = rebuild(err, { attempts });
      if (failure.code === 'ABORTED')
        throw rebuild(failure, { maybeApplied: failure.maybeApplied || anyApplied() });
      failures.push(failure);
      // A definite answer (bad input, a write that may have landed and must not be redone) ends it as is.
      if (!options.again(failure)) throw rebuild(failure, { maybeApplied: anyApplied() });
      if (n >= rounds) throw giveUp(`The update gave up after ${n} rounds.`);
      if (deadline.passed()) throw giveUp(deadline.why(n, 'update'));
      const waitMs = backoffMs(n - 1, options.backoff);
      if (waitMs >= deadline.remaining()) throw giveUp(deadline.why(n, 'update'));
      await wait(waitMs, options.signal, key, anyApplied());
    }
  }
}

async function wait(
  ms: number,
  signal: AbortSignal | undefined,
  key: string,
  maybeApplied: boolean,
): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (reason) {
    throw new TesseraError('ABORTED', 'The update was aborted by its AbortSignal.', {
      key,
      maybeApplied,
      cause: reason,
    });
  }
}
