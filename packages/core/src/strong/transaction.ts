/**
 * A transaction's record: a strong key of its own, whose single change from `pending` to
 * `committed` is the commit point (docs/transactions.md). Until then every key it writes holds an
 * intent naming it; once committed, intents are rolled forward; once cancelled, dropped.
 */
import type { CancellationReason, Condition } from './conditions.js';

export const TRANSACTION_ACTIONS_MAX = 100;

/** Where a transaction's record lives: a key no client can name (clients' keys are validated). */
export const TXN_RECORD_PREFIX = '\u0000txn/';

export function txnRecordKey(txn: string): string {
  return `${TXN_RECORD_PREFIX}${txn}`;
}

export type TransactionAction =
  | { readonly type: 'put'; readonly key: string; readonly value: string; readonly condition?: Condition }
  | { readonly type: 'delete'; readonly key: string; readonly condition?: Condition }
  | { readonly type: 'conditionCheck'; readonly key: string; readonly condition: Condition };

export type TxnStatus = 'pending' | 'committed' | 'cancelled';

export interface TxnRecord {
  readonly status: TxnStatus;
  /** Identifies the request: a retry with the same token must send the same actions. */
  readonly fingerprint: string;
  readonly keys: readonly string[];
  readonly createdAtMs: number;
  /** After this, anyone who finds the transaction still pending may cancel it. */
  readonly expiresAtMs: number;
  /** Once committed: the versions the keys have after it. */
  readonly versions?: Readonly<Record<string, string>>;
  /** Once cancelled: why, per action. */
  readonly reasons?: readonly CancellationReason[];
}

/** A canonical text of the actions, for comparing a retried request with the first. */
export function fingerprintOf(actions: readonly TransactionAction[]): string {
  return JSON.stringify(
    actions.map((a) => [a.type, a.key, 'value' in a ? a.value : null, a.condition ?? null]),
  );
}

export function encodeTxnRecord(record: TxnRecord): string {
  return JSON.stringify(record);
}

/** Decodes a record written by `encodeTxnRecord`; undefined for anything else. */
export function decodeTxnRecord(text: string | undefined): TxnRecord | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const r = parsed as Partial<TxnRecord>;
  const statusOk = r.status === 'pending' || r.status === 'committed' || r.status === 'cancelled';
  if (!statusOk || typeof r.fingerprint !== 'string' || !Array.isArray(r.keys)) return undefined;
  if (typeof r.createdAtMs !== 'number' || typeof r.expiresAtMs !== 'number') return undefined;
  return parsed as TxnRecord;
}
