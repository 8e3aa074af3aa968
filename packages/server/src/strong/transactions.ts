/**
 * Transactions on strong keys (docs/transactions.md): a record per transaction, intents on its
 * keys, and one consensus change of the record from `pending` to `committed` as the commit point.
 *
 * 1. Create the record, pending, or find it (a retry with the same clientRequestToken).
 * 2. Place an intent on every key whose condition holds and that no live transaction holds.
 * 3. All placed: commit the record. Otherwise cancel it, with a reason per action.
 * 4. Roll the intents forward (committed) or drop them (cancelled); anyone who meets a leftover
 *    intent, or the recovery sweep, does the same from the record.
 */
import {
  applyOp,
  type CancellationReason,
  conditionHolds,
  decodeTxnRecord,
  encodeTxnRecord,
  fingerprintOf,
  type Register,
  TesseraError,
  type TransactionAction,
  type TxnRecord,
  txnRecordKey,
} from '@tessera/core';
import { checkValueBytes } from '../util/value-limit.js';
import { cancelIfPending, type IntentDeps, resolveIntent, settleIntent } from './intents.js';
import type { StrongKeys } from './strong-keys.js';

export interface TransactionDeps extends IntentDeps {
  readonly keys: Pick<StrongKeys, 'get'>;
  /** How long a transaction may hold its keys before anyone may cancel it. */
  readonly txnTimeoutMs: number;
  /** The largest value a put may write, in bytes of its JSON text (config `valueBytesMax`). */
  readonly valueBytesMax: number;
  readonly randomId: () => string;
  /** Fault injection: true when this transaction's coordinator must die at `step` (never answering). */
  readonly crashAt?: (step: 'after-intents' | 'after-commit') => boolean;
}

/** How placing one action's intent went. */
type Placement =
  | { kind: 'placed'; versionAfter: number }
  | { kind: 'failed'; version: number }
  | { kind: 'conflict' };

/** Tries to place an intent at most this many times when the key held another transaction's. */
const PLACE_ATTEMPTS_MAX = 3;
/** Rounds of a snapshot read at most before it is cancelled for conflicts. */
const SNAPSHOT_ATTEMPTS_MAX = 4;

export interface SnapshotItem {
  readonly key: string;
  readonly register: Register;
}

export class Transactions {
  constructor(private readonly deps: TransactionDeps) {}

  /** Runs a transaction; resolves with each key's version after it, or throws TRANSACTION_CANCELED. */
  async transact(
    actions: readonly TransactionAction[],
    token: string | undefined,
    deadlineMs: number,
  ): Promise<Record<string, string>> {
    for (const action of actions)
      if (action.type === 'put') checkValueBytes(Buffer.byteLength(action.value), this.deps.valueBytesMax);
    const txn = token === undefined ? `r-${this.deps.randomId()}` : `t-${token}`;
    const record = await this.begin(txn, actions, deadlineMs);
    if (record.status !== 'pending') return finished(record);
    if (this.deps.now() > record.expiresAtMs) {
      return finished((await cancelIfPending(this.deps, txn, expiredReasons(actions), deadlineMs)) ?? record);
    }
    const placements = await Promise.all(
      actions.map((action) => this.place(txn, action, record.expiresAtMs, deadlineMs)),
    );
    const allPlaced = placements.every((p) => p.kind === 'placed');
    if (allPlaced) this.maybeCrash('after-intents');
    const ended = allPlaced
      ? await this.commit(txn, actions, placements, deadlineMs)
      : await cancelIfPending(this.deps, txn, placements.map(reasonOf), deadlineMs);
    if (ended?.status === 'committed') this.maybeCrash('after-commit');
    if (ended === undefined || ended.status === 'pending') {
      throw new TesseraError('INTERNAL', `Transaction ${txn} has no final record after its end.`);
    }
    // The outcome is decided: answer now, and settle the intents after (a reader that meets one
    // first settles it from the record the same way).
    void this.settleThenForget(txn, ended, token, deadlineMs);
    return finished(ended);
  }

  /** Fault injection: SIGKILL this process now, when armed for `step`. */
  private maybeCrash(step: 'after-intents' | 'after-commit'): void {
    if (this.deps.crashAt?.(step) !== true) return;
    process.kill(process.pid, 'SIGKILL');
    throw new TesseraError('INTERNAL', `Fault injection: this node dies ${step}.`);
  }

  /** A consistent snapshot: every key read twice, answered once no version moved in between. */
  async snapshot(keys: readonly string[], deadlineMs: number): Promise<SnapshotItem[]> {
    for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS_MAX; attempt++) {
      const first = await Promise.all(keys.map((key) => this.deps.keys.get(key, deadlineMs)));
      const second = await Promise.all(keys.map((key) => this.deps.keys.get(key, deadlineMs)));
      if (first.every((r, i) => r.version === second[i]?.version)) {
        return keys.map((key, i) => ({ key, register: second[i] ?? { version: 0 } }));
      }
    }
    throw new TesseraError(
      'TRANSACTION_CANCELED',
      'The snapshot read kept meeting writes in progress on its keys; retry.',
      { cancellationReasons: keys.map(() => ({ code: 'TransactionConflict' })) },
    );
  }

  private async begin(
    txn: string,
    actions: readonly TransactionAction[],
    deadlineMs: number,
  ): Promise<TxnRecord> {
    const fingerprint = fingerprintOf(actions);
    const nowMs = this.deps.now();
    const { result } = await this.deps.proposer.change(
      txnRecordKey(txn),
      (current) => {
        const found = decodeTxnRecord(current.value);
        if (found !== undefined) return { result: found };
        const fresh: TxnRecord = {
          status: 'pending',
          fingerprint,
          keys: actions.map((a) => a.key),
          createdAtMs: nowMs,
          expiresAtMs: nowMs + this.deps.txnTimeoutMs,
        };
        return { next: applyOp(current, 'put', encodeTxnRecord(fresh)), result: fresh };
      },
      deadlineMs,
    );
    if (result.fingerprint !== fingerprint) {
      throw new TesseraError(
        'IDEMPOTENT_PARAMETER_MISMATCH',
        'This clientRequestToken was already used for a transaction with other actions. Use a new token for a new transaction.',
      );
    }
    return result;
  }

  private async place(
    txn: string,
    action: TransactionAction,
    expiresAtMs: number,
    deadlineMs: number,
  ): Promise<Placement> {
    const op = action.type === 'put' ? 'put' : action.type === 'delete' ? 'delete' : 'check';
    const value = action.type === 'put' ? action.value : undefined;
    for (let attempt = 0; attempt < PLACE_ATTEMPTS_MAX; attempt++) {
      const { result } = await this.deps.proposer.change<Placement | { kind: 'held'; register: Register }>(
        action.key,
        (current) => {
          if (current.intent?.txn === txn) {
            return { result: { kind: 'placed', versionAfter: applyOp(current, op, value).version } };
          }
          if (current.intent !== undefined) return { result: { kind: 'held', register: current } };
          if (!conditionHolds(current, action.condition))
            return { result: { kind: 'failed', version: current.version } };
          const intent = { txn, op, expiresAtMs, ...(value === undefined ? {} : { value }) } as const;
          return {
            next: { ...current, intent },
            result: { kind: 'placed', versionAfter: applyOp(current, op, value).version },
          };
        },
        deadlineMs,
      );
      if (result.kind !== 'held') return result;
      const intent = result.register.intent;
      if (intent === undefined) continue;
      const resolved = await resolveIntent(this.deps, action.key, intent, deadlineMs);
      if (resolved.pending) return { kind: 'conflict' };
    }
    return { kind: 'conflict' };
  }

  private async commit(
    txn: string,
    actions: readonly TransactionAction[],
    placements: readonly Placement[],
    deadlineMs: number,
  ): Promise<TxnRecord | undefined> {
    const versions: Record<string, string> = {};
    actions.forEach((action, i) => {
      const p = placements[i];
      if (p?.kind === 'placed') versions[action.key] = String(p.versionAfter);
    });
    const { result } = await this.deps.proposer.change(
      txnRecordKey(txn),
      (current) => {
        const record = decodeTxnRecord(current.value);
        if (record === undefined || record.status !== 'pending') return { result: record };
        const committed: TxnRecord = { ...record, status: 'committed', versions };
        return { next: applyOp(current, 'put', encodeTxnRecord(committed)), result: committed };
      },
      deadlineMs,
    );
    return result;
  }

  private async settleThenForget(
    txn: string,
    record: TxnRecord,
    token: string | undefined,
    deadlineMs: number,
  ): Promise<void> {
    // Its own deadline: the request's may be nearly spent, and this no longer holds up the client.
    const settleBy = Math.max(deadlineMs, this.deps.now() + this.deps.txnTimeoutMs);
    if ((await this.settle(txn, record, settleBy)) && token === undefined) {
      // Without a token nobody will ask for this record again: drop it once every key is settled.
      await this.deps.proposer
        .tell(txnRecordKey(txn), { kind: 'forget', key: txnRecordKey(txn) })
        .catch(() => undefined);
    }
  }

  /** Rolls the intents forward or drops them; true if all were. A failure is left to readers and the sweep. */
  private async settle(txn: string, record: TxnRecord, deadlineMs: number): Promise<boolean> {
    const settled = await Promise.allSettled(
      record.keys.map((key) => settleIntent(this.deps, key, txn, record, deadlineMs)),
    );
    return settled.every((s) => s.status === 'fulfilled');
  }
}

function reasonOf(placement: Placement): CancellationReason {
  if (placement.kind === 'placed') return { code: 'None' };
  if (placement.kind === 'failed')
    return { code: 'ConditionalCheckFailed', currentVersion: String(placement.version) };
  return { code: 'TransactionConflict', message: 'another transaction holds this key' };
}

function expiredReasons(actions: readonly TransactionAction[]): CancellationReason[] {
  return actions.map(() => ({
    code: 'TransactionConflict',
    message: 'the transaction expired before it could commit',
  }));
}

/** A final record as the answer: its versions, or TRANSACTION_CANCELED with its reasons. */
function finished(record: TxnRecord): Record<string, string> {
  if (record.status === 'committed') return { ...(record.versions ?? {}) };
  const reasons = record.reasons ?? record.keys.map(() => ({ code: 'TransactionConflict' as const }));
  const failed = reasons.filter((r) => r.code !== 'None').length;
  throw new TesseraError(
    'TRANSACTION_CANCELED',
    `The transaction was cancelled and changed nothing: ${failed} of ${reasons.length} actions could not be applied (see details.cancellationReasons).`,
    { cancellationReasons: reasons },
  );
}
