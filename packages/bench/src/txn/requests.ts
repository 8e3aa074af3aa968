/** The HTTP calls of strong keys and transactions (docs/transactions.md), over undici pools. */
import type { Pool } from 'undici';
import { errorCodeOf, kvPath } from '../http.js';
import type { Outcome } from '../recorder.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export interface StrongWriteOutcome extends Outcome {
  /** The key's version after the write, or its current version from a 412. */
  readonly version?: string;
}

/** The body of POST /v1/transactions putting each key to one already serialized value. */
export function putActionsBody(keys: readonly string[], serializedValue: string): string {
  const actions = keys.map((key) => `{"type":"put","key":${JSON.stringify(key)},"value":${serializedValue}}`);
  return `{"actions":[${actions.join(',')}]}`;
}

/** The body of POST /v1/transactions/get. */
export function transactGetBody(keys: readonly string[]): string {
  return JSON.stringify({ keys });
}

/** POST /v1/transactions: 200 is success; 409 TRANSACTION_CANCELED and the rest are errors. */
export async function transact(pool: Pool, body: string): Promise<Outcome> {
  return post(pool, '/v1/transactions', body);
}

/** POST /v1/transactions/get: a consistent snapshot of the keys. */
export async function transactGet(pool: Pool, body: string): Promise<Outcome> {
  return post(pool, '/v1/transactions/get', body);
}

async function post(pool: Pool, path: string, body: string): Promise<Outcome> {
  const res = await pool.request({ method: 'POST', path, headers: JSON_HEADERS, body });
  const text = await res.body.text();
  return res.statusCode === 200 ? {} : { error: errorCodeOf(res.statusCode, text) };
}

/**
 * PUT of a strong key, with `If-Match: "<version>"` when `ifMatch` is given. Answers the version
 * after the write, or with PRECONDITION_FAILED the key's current version.
 */
export async function strongPut(
  pool: Pool,
  key: string,
  body: string,
  ifMatch?: string,
): Promise<StrongWriteOutcome> {
  const headers = ifMatch === undefined ? JSON_HEADERS : { ...JSON_HEADERS, 'if-match': `"${ifMatch}"` };
  const res = await pool.request({ method: 'PUT', path: kvPath(key), headers, body });
  const text = await res.body.text();
  if (res.statusCode === 200) {
    const version = versionOf(text, (b) => b.version);
    return version === undefined ? {} : { version };
  }
  const error = errorCodeOf(res.statusCode, text);
  const current = versionOf(text, (b) => b.error?.details?.currentVersion);
  return current === undefined ? { error } : { error, version: current };
}

interface WriteBody {
  readonly version?: unknown;
  readonly error?: { readonly details?: { readonly currentVersion?: unknown } };
}

function versionOf(text: string, pick: (body: WriteBody) => unknown): string | undefined {
  try {
    const found = pick(JSON.parse(text) as WriteBody);
    return typeof found === 'string' ? found : undefined;
  } catch {
    return undefined;
  }
}
