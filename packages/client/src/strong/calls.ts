/**
 * Get, put and delete of one strong key (`GET|PUT|DELETE /v1/kv/:key` of a key in a strong
 * namespace): linearizable, no siblings, a version instead of a context, conditional writes.
 * The client's request machinery sends them (routing, deadlines, retries where retry.ts allows);
 * a strong collection (collection.ts) adds ids, schemas and `update`.
 *
 * Retries: a read is retried like any read. A write with a condition cannot apply twice, so it is
 * retried after a failure that may have applied it (a dropped connection, a timeout,
 * STRONG_UNAVAILABLE), but the retry may then answer PRECONDITION_FAILED because the first attempt
 * did apply: such an error has `maybeApplied: true`. A write without a condition is not retried
 * after such a failure, as a plain put is not: sent again, it would apply a second time, after any
 * write made in between.
 */
import { TesseraError } from '../errors.js';
import { answerError, isRecord } from '../http/call.js';
import type { Answer, RequestSpec } from '../http/requester.js';
import type { BackoffOptions } from '../http/retry.js';
import { badBody, type CallOptions, kvPath } from '../kv.js';
import { conditionHeaders, isVersion, type StrongWriteCondition } from './conditions.js';

/** Sends one API call through the client's request machinery (TesseraClient's `send`). */
export type Send = (spec: RequestSpec, options: CallOptions) => Promise<Answer>;

/** A strong read: the value when the key has one, and the key's version either way. */
export type StrongRead =
  | { readonly found: true; readonly value: unknown; readonly version: string }
  | { readonly found: false; readonly version: string };

/** What a strong put or delete answers: the key's version after it. */
export interface StrongWriteResult {
  readonly version: string;
}

export interface StrongSettings {
  /** Sent as `?timeoutMs=` (the client's serverTimeoutMs). */
  readonly serverTimeoutMs: number | undefined;
  /** Between the rounds of a strong update. */
  readonly backoff: BackoffOptions;
  /** The client's default deadline of a whole update. */
  readonly deadlineMs: number | undefined;
}

export class StrongCalls {
  constructor(
    private readonly send: Send,
    readonly settings: StrongSettings,
  ) {}

  /** The key's value and version (`?missing=ok`: a key with no value is a 200 without "value"). */
  async read(key: string, options: CallOptions = {}): Promise<StrongRead> {
    const path = kvPath(key, {
      missing: 'ok',
      consistency: 'strong',
      timeoutMs: this.settings.serverTimeoutMs,
    });
    const answer = await this.send({ method: 'GET', key, path, safety: 'read', accept: [404] }, options);
    const node = answer.route.url;
    if (answer.status === 404) return { found: false, version: notFoundVersion(key, answer) };
    const body = strongBody(key, answer, 'a get', false);
    const version = versionOf(body, node, 'a get');
    return 'value' in body ? { found: true, value: body.value, version } : { found: false, version };
  }

  /** Writes `value`; with a condition, only if it holds (else PRECONDITION_FAILED). */
  async put(
    key: string,
    value: unknown,
    options: CallOptions & StrongWriteCondition = {},
  ): Promise<StrongWriteResult> {
    if (value === undefined) {
      throw new TesseraError('INVALID_ARGUMENT', 'put() needs a JSON value; use delete() to remove a key.', {
        key,
      });
    }
    return this.write('PUT', key, { value }, options);
  }

  /** Deletes the key's value (a key with none: 200, version unchanged); with ifVersion, only then. */
  async delete(
    key: string,
    options: CallOptions & Pick<StrongWriteCondition, 'ifVersion'> = {},
  ): Promise<StrongWriteResult> {
    const { ifVersion, ...call } = options;
    return this.write('DELETE', key, {}, { ...call, ifVersion });
  }

  private async write(
    method: 'PUT' | 'DELETE',
    key: string,
    body: object,
    options: CallOptions & StrongWriteCondition,
  ): Promise<StrongWriteResult> {
    const headers = conditionHeaders(options, key);
    const answer = await this.send(
      {
        method,
        key,
        // `consistency=strong`: a node that does not see the key as strong refuses it (NOT_STRONG_KEY)
        // before writing anything; an older node ignores it and answers as for a plain key.
        path: kvPath(key, { consistency: 'strong', timeoutMs: this.settings.serverTimeoutMs }),
        body,
        // With a condition a copy cannot apply twice; without one it can (see above).
        safety: headers === undefined ? 'write' : 'conditional',
        ...(headers === undefined ? {} : { headers }),
      },
      options,
    );
    const call = method === 'PUT' ? 'a put' : 'a delete';
    return { version: versionOf(strongBody(key, answer, call, true), answer.route.url, call) };
  }
}

/** The answer's body, when it is a strong key's; a plain key's answer is NOT_STRONG_KEY. */
function strongBody(key: string, answer: Answer, call: string, write: boolean): Record<string, unknown> {
  const node = answer.route.url;
  const body = answer.body;
  if (!isRecord(body)) throw badBody(node, 'not an object', call);
  if (body.consistency === 'strong') return body;
  const applied = write
    ? ' The write was applied to it as a plain key (no version, eventually consistent).'
    : '';
  throw new TesseraError(
    'NOT_STRONG_KEY',
    `${node} answered ${call} of key "${key}" as a plain key's: its namespace is not one of the nodes' strong namespaces (--strong, strongNamespaces).${applied}`,
    { key, node, httpStatus: answer.status, maybeApplied: write },
  );
}

function versionOf(body: Record<string, unknown>, node: string, call: string): string {
  if (isVersion(body.version)) return body.version;
  throw badBody(node, 'no version', call);
}

/** The version in a strong key's 404 NOT_FOUND (a node that ignored `?missing=ok`). */
function notFoundVersion(key: string, answer: Answer): string {
  const error = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : undefined;
  if (error?.code !== 'NOT_FOUND') throw answerError(answer, answer.route.url);
  const version = isRecord(error.details) ? error.details.version : undefined;
  if (isVersion(version)) return version;
  throw new TesseraError(
    'NOT_STRONG_KEY',
    `${answer.route.url} answered a get of key "${key}" with a 404 without a version: it is not a strong key there (--strong, strongNamespaces).`,
    { key, node: answer.route.url, httpStatus: 404 },
  );
}
