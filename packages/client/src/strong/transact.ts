/**
 * Transactions over strong keys: `POST /v1/transactions` (1 to 100 puts, deletes and condition
 * checks that all apply or none does) and `POST /v1/transactions/get` (a consistent snapshot of up
 * to 100 keys). Actions are checked before anything is sent: their count, unique keys, conditions
 * and JSON values (INVALID_ARGUMENT, INVALID_KEY, INVALID_VALUE).
 *
 * Every call carries a clientRequestToken (a random one unless `token` is given), the same on every
 * attempt of the call: a node answers a repeat within 10 minutes with the first outcome and never
 * applies it twice. So a transaction is retried after a dropped connection, a timeout or
 * STRONG_UNAVAILABLE, and its answer is the truth. When the call still fails with a failure after
 * which it may have committed, the error's `details.clientRequestToken` is the token: send the
 * same actions with `{ token }` within 10 minutes to learn the outcome.
 */
import { TesseraError } from '../errors.js';
import { isRecord, type JsonCodec, STANDARD_JSON, serializeBody } from '../http/call.js';
import { rebuild } from '../http/retry.js';
import { badBody, type CallOptions, checkKey } from '../kv.js';
import type { Send } from './calls.js';
import { checkCondition, isVersion, type TransactCondition } from './conditions.js';
import { withActionKeys } from './reasons.js';

/** Actions (and keys read) per transaction, at most. */
export const TRANSACT_ITEMS_MAX = 100;

const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

export interface TransactPut {
  readonly type: 'put';
  readonly key: string;
  readonly value: unknown;
  readonly condition?: TransactCondition | undefined;
}

export interface TransactDelete {
  readonly type: 'delete';
  readonly key: string;
  readonly condition?: TransactCondition | undefined;
}

export interface TransactCheck {
  readonly type: 'conditionCheck';
  readonly key: string;
  readonly condition: TransactCondition;
}

/** One action of a transaction; each key at most once per transaction. */
export type TransactAction = TransactPut | TransactDelete | TransactCheck;

export interface TransactOptions extends CallOptions {
  /**
   * The clientRequestToken (1 to 64 of A-Z, a-z, 0-9, "_", "-"). Default: a new random one per
   * call. Give your own to resend a transaction later (after a crash, say) without applying it twice.
   */
  readonly token?: string;
}

export interface TransactResult {
  /** Each action's key with its version after the transaction (a condition check's: its current one). */
  readonly versions: Readonly<Record<string, string>>;
}

/** One key of a `transactGet`, in the order asked. */
export type TransactGetItem =
  | { readonly key: string; readonly found: true; readonly value: unknown; readonly version: string }
  | { readonly key: string; readonly found: false; readonly value?: undefined; readonly version: string };

/**
 * `serverTimeoutMs`: the node's own deadline for the request (the client's option of that name), so
 * a node that cannot reach a majority answers STRONG_UNAVAILABLE before the client gives up on it.
 */
export async function transact(
  send: Send,
  actions: readonly TransactAction[],
  options: TransactOptions = {},
  serverTimeoutMs?: number,
  json: JsonCodec = STANDARD_JSON,
): Promise<TransactResult> {
  const checked = checkActions(actions, json);
  const token = options.token === undefined ? newToken() : checkToken(options.token);
  const keys = checked.map((a) => a.key);
  const body = {
    clientRequestToken: token,
    actions: checked,
    ...(serverTimeoutMs === undefined ? {} : { timeoutMs: serverTimeoutMs }),
  };
  let answer: Awaited<ReturnType<Send>>;
  try {
    answer = await send(
      { method: 'POST', key: undefined, path: '/v1/transactions', body, safety: 'token' },
      options,
    );
  } catch (err) {
    if (!TesseraError.is(err)) throw err;
    if (err.code === 'TRANSACTION_CANCELED') throw withActionKeys(err, keys);
    throw err.maybeApplied ? withToken(err, token) : err;
  }
  const versions = isRecord(answer.body) && answer.body.committed === true ? answer.body.versions : undefined;
  if (!isRecord(versions) || !keys.every((k) => isVersion(versions[k]))) {
    const err = badBody(answer.route.url, 'no version for every key', 'a transaction');
    throw withToken(rebuild(err, { maybeApplied: true }), token);
  }
  return { versions: Object.fromEntries(keys.map((k) => [k, versions[k] as string])) };
}

export async function transactGet(
  send: Send,
  keys: readonly string[],
  options: CallOptions = {},
  serverTimeoutMs?: number,
): Promise<TransactGetItem[]> {
  if (!Array.isArray(keys) || keys.length < 1 || keys.length > TRANSACT_ITEMS_MAX) {
    throw invalid(`transactGet() takes an array of 1 to ${TRANSACT_ITEMS_MAX} keys.`);
  }
  uniqueKeys(keys);
  const answer = await send(
    {
      method: 'POST',
      key: undefined,
      path: '/v1/transactions/get',
      body: { keys: [...keys], ...(serverTimeoutMs === undefined ? {} : { timeoutMs: serverTimeoutMs }) },
      safety: 'read',
    },
    options,
  );
  const node = answer.route.url;
  const items = isRecord(answer.body) ? answer.body.items : undefined;
  if (!Array.isArray(items) || items.length !== keys.length) {
    throw badBody(node, 'not one item per key', 'a transactGet');
  }
  return items.map((item: unknown, i): TransactGetItem => {
    const key = keys[i]!;
    if (!isRecord(item) || item.key !== key || !isVersion(item.version)) {
      throw badBody(node, 'items out of order or without a version', 'a transactGet');
    }
    if (item.found === true && 'value' in item)
      return { key, found: true, value: item.value, version: item.version };
    if (item.found === false) return { key, found: false, version: item.version };
    throw badBody(node, `an item without found and value (key "${key}")`, 'a transactGet');
  });
}

/** The actions as sent: checked, with only their known fields. */
function checkActions(actions: readonly TransactAction[], json: JsonCodec): TransactAction[] {
  if (!Array.isArray(actions) || actions.length < 1 || actions.length > TRANSACT_ITEMS_MAX) {
    throw invalid(`transact() takes an array of 1 to ${TRANSACT_ITEMS_MAX} actions.`);
  }
  const checked = actions.map((action: unknown, i): TransactAction => {
    if (!isRecord(action)) throw invalid(`Action ${i + 1} is not an object.`);
    const key = action.key as string;
    const condition = action.condition === undefined ? undefined : checkCondition(action.condition, key, i);
    const when = condition === undefined ? {} : { condition };
    if (action.type === 'delete') return { type: 'delete', key, ...when };
    if (action.type === 'conditionCheck') {
      if (condition === undefined)
        throw invalid(`Action ${i + 1} (key "${key}"): a conditionCheck needs a condition.`, key);
      return { type: 'conditionCheck', key, condition };
    }
    if (action.type !== 'put') {
      throw invalid(`Action ${i + 1} (key "${key}"): type is "put", "delete" or "conditionCheck".`, key);
    }
    if (action.value === undefined) {
      throw invalid(
        `Action ${i + 1} (key "${key}"): a put needs a JSON value; use a delete to remove a key.`,
        key,
      );
    }
    // A value JSON cannot hold is INVALID_VALUE naming its key, before anything is sent.
    serializeBody({ value: action.value }, key, json);
    return { type: 'put', key, value: action.value, ...when };
  });
  uniqueKeys(checked.map((a) => a.key));
  return checked;
}

/** Each key valid (INVALID_KEY) and given once (INVALID_ARGUMENT naming it). */
function uniqueKeys(keys: readonly string[]): void {
  const seen = new Set<string>();
  for (const key of keys) {
    checkKey(key);
    if (seen.has(key)) throw invalid(`Key "${key}" is named twice; a transaction names each key once.`, key);
    seen.add(key);
  }
}

function checkToken(token: string): string {
  if (typeof token === 'string' && TOKEN.test(token)) return token;
  throw invalid('token (a clientRequestToken) is 1 to 64 of A-Z, a-z, 0-9, "_" and "-".');
}

/** A random token: crypto.randomUUID (Node, secure pages), else 16 random bytes in hex. */
function newToken(): string {
  const crypto = globalThis.crypto as Partial<Crypto> | undefined;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  if (typeof crypto?.getRandomValues === 'function') {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  throw invalid(
    'This environment has no crypto.getRandomValues to make a clientRequestToken: pass { token }.',
  );
}

function withToken(err: TesseraError, token: string): TesseraError {
  return rebuild(err, {
    details: { ...err.details, clientRequestToken: token },
    message: `${err.message} The transaction may have committed: send the same actions with { token: "${token}" } within 10 minutes to learn its outcome (it never applies twice).`,
  });
}

function invalid(message: string, key?: string): TesseraError {
  return new TesseraError('INVALID_ARGUMENT', message, key === undefined ? {} : { key });
}
