/**
 * Resolving a transaction's intent found on a key (docs/transactions.md, "Recovery"): the
 * transaction's record decides. Committed: the intent is rolled forward. Cancelled (or no record):
 * dropped. Pending past its expiry (core/strong/expiry.ts): anyone may cancel the record — a single consensus change that
 * races with the coordinator's commit, so exactly one of the two wins — and then drop the intent.
 */
import {
  applyOp,
  decodeTxnRecord,
  encodeTxnRecord,
  type Intent,
  type Register,
  rollForward,
  type TxnExpiry,
  type TxnRecord,
  txnRecordKey,
  withoutIntent,
} from '@tessera/core';
import type { Proposer } from './proposer.js';

export interface IntentDeps {
  readonly proposer: Pick<Proposer, 'change' | 'tell'>;
  readonly now: () => number;
  /** When a pending transaction may be cancelled by anyone who finds it. */
  readonly expiry: Pick<TxnExpiry, 'expired' | 'finished'>;
}

/** The record of a transaction, read linearizably; undefined if it was never written. */
export async function readTxnRecord(
  deps: IntentDeps,
  txn: string,
  deadlineMs: number,
): Promise<TxnRecord | undefined> {
  const { register } = await deps.proposer.change(
    txnRecordKey(txn),
    () => ({ result: undefined }),
    deadlineMs,
  );
  return decodeTxnRecord(register.value);
}

/** Cancels a transaction if it is still pending; answers how it ended. */
export async function cancelIfPending(
  deps: IntentDeps,
  txn: string,
  reasons: TxnRecord['reasons'],
  deadlineMs: number,
): Promise<TxnRecord | undefined> {
  const { result } = await deps.proposer.change(
    txnRecordKey(txn),
    (current) => {
      const record = decodeTxnRecord(current.value);
      if (record === undefined || record.status !== 'pending') return { result: record };
      const cancelled: TxnRecord = {
        ...record,
        status: 'cancelled',
        ...(reasons === undefined ? {} : { reasons }),
      };
      return { next: applyOp(current, 'put', encodeTxnRecord(cancelled)), result: cancelled };
    },
    deadlineMs,
  );
  return result;
}

/** The record of `intent`'s transaction, cancelled first when it is pending and expired. */
export async function outcomeOf(
  deps: IntentDeps,
  intent: Intent,
  deadlineMs: number,
): Promise<TxnRecord | undefined> {
  const record = await readTxnRecord(deps, intent.txn, deadlineMs);
  if (record === undefined) return record;
  if (record.status !== 'pending') {
    deps.expiry.finished(intent.txn);
    return record;
  }
  if (!deps.expiry.expired(intent.txn, record.expiresAtMs)) return record;
  const reasons = record.keys.map(() => ({
    code: 'TransactionConflict' as const,
    message: 'cancelled by recovery: its coordinator did not finish it before it expired',
  }));
  return cancelIfPending(deps, intent.txn, reasons, deadlineMs);
}

/**
 * Applies a finished transaction's outcome to `key` if the key still holds its intent. An intent
 * is rolled forward only when that gives the version the record committed: an intent placed again
 * by a retry of the transaction after it committed (and rolled forward) is dropped instead, so a
 * transaction never applies twice.
 */
export async function settleIntent(
  deps: IntentDeps,
  key: string,
  txn: string,
  record: TxnRecord | undefined,
  deadlineMs: number,
): Promise<Register> {
  const committedVersion = record?.status === 'committed' ? record.versions?.[key] : undefined;
  const { register } = await deps.proposer.change(
    key,
    (current) => {
      if (current.intent?.txn !== txn) return { result: undefined };
      const forward = rollForward(current);
      const applies = committedVersion !== undefined && String(forward.version) === committedVersion;
      return { next: applies ? forward : withoutIntent(current), result: undefined };
    },
    deadlineMs,
  );
  return register;
}

/**
 * Resolves the intent on `key` if its transaction is over (or expired). Answers the key's register
 * after that, or that the transaction is still live.
 */
export async function resolveIntent(
  deps: IntentDeps,
  key: string,
  intent: Intent,
  deadlineMs: number,
): Promise<{ register?: Register; pending: boolean }> {
  const record = await outcomeOf(deps, intent, deadlineMs);
  if (record?.status === 'pending') return { pending: true };
  return { register: await settleIntent(deps, key, intent.txn, record, deadlineMs), pending: false };
}
