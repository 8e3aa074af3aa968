/**
 * Why a transaction was canceled: TRANSACTION_CANCELED's `details.cancellationReasons`, one per
 * action in the order they were given, typed by `cancellationReasons(error)`.
 */
import { TesseraError } from '../errors.js';
import { isRecord } from '../http/call.js';
import { rebuild } from '../http/retry.js';
import { isVersion } from './conditions.js';

/**
 * Why one action of a canceled transaction did not apply. `key` is the action's key (set by
 * `client.transact`; undefined in an error made elsewhere).
 * - `None`: this action was fine; another one canceled the transaction.
 * - `ConditionalCheckFailed`: its condition did not hold; `currentVersion` is the key's version.
 * - `TransactionConflict`: a concurrent transaction or write held the key; retrying may succeed.
 * - `Unknown`: a reason this version of the client does not know (from a newer node), as sent.
 */
export type CancellationReason =
  | { readonly code: 'None'; readonly key: string | undefined }
  | {
      readonly code: 'ConditionalCheckFailed';
      readonly currentVersion: string;
      readonly key: string | undefined;
    }
  | { readonly code: 'TransactionConflict'; readonly key: string | undefined }
  | { readonly code: 'Unknown'; readonly reported: unknown; readonly key: string | undefined };

/**
 * The reasons of a TRANSACTION_CANCELED error, one per action, in the actions' order; undefined
 * for any other error (or one without reasons).
 */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (!TesseraError.is(error, 'TRANSACTION_CANCELED')) return undefined;
  const reasons = error.details?.cancellationReasons;
  return Array.isArray(reasons) ? reasons.map(parseReason) : undefined;
}

function parseReason(reason: unknown): CancellationReason {
  const key = isRecord(reason) && typeof reason.key === 'string' ? reason.key : undefined;
  const code = isRecord(reason) ? reason.code : undefined;
  if (code === 'None' || code === 'TransactionConflict') return { code, key };
  if (code === 'ConditionalCheckFailed' && isRecord(reason) && isVersion(reason.currentVersion)) {
    return { code, currentVersion: reason.currentVersion, key };
  }
  return { code: 'Unknown', reported: reason, key };
}

/**
 * The TRANSACTION_CANCELED error of a transaction with these keys: each reason given its action's
 * key, and the message saying which actions failed and why.
 */
export function withActionKeys(error: TesseraError, keys: readonly string[]): TesseraError {
  const raw = error.details?.cancellationReasons;
  if (!Array.isArray(raw)) return error;
  const reasons = raw.map((r: unknown, i) => (isRecord(r) ? { ...r, key: keys[i] } : r));
  const failed = (cancellationReasons(rebuild(error, { details: { cancellationReasons: reasons } })) ?? [])
    .filter((r) => r.code !== 'None')
    .map(
      (r) =>
        `${r.key ?? '?'}: ${r.code === 'ConditionalCheckFailed' ? `condition failed (version ${r.currentVersion})` : r.code}`,
    );
  return rebuild(error, {
    details: { ...error.details, cancellationReasons: reasons },
    ...(failed.length === 0 ? {} : { message: `${error.message} (${failed.join('; ')})` }),
  });
}
