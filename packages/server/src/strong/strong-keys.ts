/**
 * Single operations on strong keys: linearizable get, and put and delete with an optional
 * condition. A key held by a live transaction's intent reads as it was before the transaction
 * (which has not committed yet: reading its record said so), and a write to it waits, with
 * jittered pauses, until the transaction ends or expires — at most the transaction's timeout.
 */
import {
  applyOp,
  type Condition,
  conditionHolds,
  type Intent,
  OPS_REMEMBERED,
  type Register,
  TesseraError,
  versionOfOp,
  withoutIntent,
} from '@tessera/core';
import { checkValueBytes } from '../util/value-limit.js';
import { type IntentDeps, resolveIntent } from './intents.js';

export interface StrongKeysDeps extends IntentDeps {
  /** The largest value, in bytes of its JSON text (config `valueBytesMax`, as for plain keys). */
  readonly valueBytesMax: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  /** A unique id for each write (its round may end in doubt and be retried). */
  readonly randomId: () => string;
}

/** A write that waits for a transaction pauses this long at most between looks. */
const WAIT_PAUSE_MAX_MS = 50;
/** Looks at a key held by intents, at most, before giving up (the deadline usually ends it first). */
const LOOKS_MAX = 400;

type WriteStep =
  | { ok: true; version: number }
  | { ok: false; held: Intent }
  | { ok: false; failed: number }
  | { ok: false; doubt: true };

export class StrongKeys {
  constructor(private readonly deps: StrongKeysDeps) {}

  /** The key's register as of one instant, no intent on it. */
  async get(key: string, deadlineMs: number): Promise<Register> {
    for (let look = 0; look < LOOKS_MAX; look++) {
      const { register } = await this.deps.proposer.change(key, () => ({ result: undefined }), deadlineMs);
      if (register.intent === undefined) return register;
      const resolved = await resolveIntent(this.deps, key, register.intent, deadlineMs);
      if (resolved.pending) return withoutIntent(register);
      if (resolved.register?.intent === undefined && resolved.register !== undefined)
        return resolved.register;
    }
    throw this.busy(key);
  }

  /** Puts `value` (JSON text) or, with undefined, deletes; PRECONDITION_FAILED if `condition` fails. */
  async write(
    key: string,
    value: string | undefined,
    condition: Condition | undefined,
    deadlineMs: number,
  ): Promise<Register> {
    if (value !== undefined) checkValueBytes(Buffer.byteLength(value), this.deps.valueBytesMax);
    const opId = this.deps.randomId();
    // The version the first round that wrote saw: a round that ends in doubt (accepts lost) may
    // still have been chosen, so later rounds look for `opId` among the register's last writes.
    let wroteFrom: number | undefined;
    for (let look = 0; look < LOOKS_MAX; look++) {
      const { register, result } = await this.deps.proposer.change<WriteStep>(
        key,
        (current) => {
          const applied = versionOfOp(current, opId);
          if (applied !== undefined) return { result: { ok: true, version: applied } };
          if (wroteFrom !== undefined && current.version - wroteFrom >= OPS_REMEMBERED) {
            return { result: { ok: false, doubt: true } };
          }
          if (current.intent !== undefined) return { result: { ok: false, held: current.intent } };
          if (!conditionHolds(current, condition)) return { result: { ok: false, failed: current.version } };
          const next =
            value === undefined
              ? applyOp(current, 'delete', undefined, opId)
              : applyOp(current, 'put', value, opId);
          wroteFrom ??= current.version;
          return { next, result: { ok: true, version: next.version } };
        },
        deadlineMs,
      );
      if (result.ok) return register.version === result.version ? register : { version: result.version };
      if ('doubt' in result) {
        throw new TesseraError(
          'STRONG_UNAVAILABLE',
          `A write to strong key "${key.slice(0, 200)}" may or may not have been applied: its round was interrupted and more writes followed. Read the key to see.`,
          { maybeApplied: true },
        );
      }
      if ('failed' in result) {
        throw new TesseraError(
          'PRECONDITION_FAILED',
          `The condition on strong key "${key.slice(0, 200)}" does not hold: its version is ${result.failed}. Read it again and decide anew.`,
          { currentVersion: String(result.failed) },
        );
      }
      const resolved = await resolveIntent(this.deps, key, result.held, deadlineMs);
      if (resolved.pending) await this.pause(deadlineMs);
    }
    throw this.busy(key);
  }

  private async pause(deadlineMs: number): Promise<void> {
    const ms =
      Math.min(WAIT_PAUSE_MAX_MS, Math.max(0, deadlineMs - this.deps.now())) * (0.5 + this.deps.random() / 2);
    if (ms <= 0) return;
    await this.deps.sleep(ms);
  }

  private busy(key: string): TesseraError {
    return new TesseraError(
      'STRONG_UNAVAILABLE',
      `Strong key "${key.slice(0, 200)}" stayed held by transactions in progress until the deadline. Retry shortly.`,
    );
  }
}
