/**
 * One HTTP attempt against one node: deadline, abort, JSON in and out, and every failure turned
 * into a TesseraError that says which node and whether the request may have reached it.
 */
import { TesseraError } from '../errors.js';
import { type HttpMethod, type Transport, TransportFailure } from '../transport/types.js';

export interface Attempt {
  readonly method: HttpMethod;
  /** Path and query, e.g. `/v1/kv/cart%2F42?r=2`. */
  readonly path: string;
  /** Sent as JSON (serialized before anything is sent: see `serializeBody`). */
  readonly body?: unknown;
  /** The body already serialized (by `serializeBody`); wins over `body`. */
  readonly bodyText?: string | undefined;
  /** Request headers of the call (a strong write's If-Match, say). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

export interface NodeAnswer {
  readonly status: number;
  /** Parsed JSON; undefined for an empty body. */
  readonly body: unknown;
  readonly retryAfterMs: number | undefined;
}

/**
 * How bodies become JSON text and back: JSON.parse and JSON.stringify unless the client's `json`
 * option gives others (a parser that keeps numbers past 2^53 exact, say: README, "Numbers past
 * 2^53"). `parse` must give what JSON.parse gives for the client's own fields (strings, small
 * whole numbers, arrays, objects); `stringify` answers undefined for a value it cannot write.
 */
export interface JsonCodec {
  parse(text: string): unknown;
  stringify(value: unknown): string | undefined;
}

export const STANDARD_JSON: JsonCodec = {
  parse: (text) => JSON.parse(text),
  stringify: (value) => JSON.stringify(value),
};

export interface CallOptions {
  readonly timeoutMs: number;
  /** How the answer's body is parsed; default STANDARD_JSON. */
  readonly json?: JsonCodec | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Set when `timeoutMs` is what is left of the call's deadline: the timeout's message says so. */
  readonly deadlineMs?: number | undefined;
}

/**
 * The JSON text of a request body, made before anything is sent: a value JSON cannot hold (a
 * BigInt, a cycle, a toJSON that throws; a function or symbol where a field is needed) is
 * INVALID_VALUE, the caller's mistake, never a network failure that marks a node down or is
 * retried. Undefined for no body.
 */
export function serializeBody(
  body: unknown,
  key?: string,
  json: JsonCodec = STANDARD_JSON,
): string | undefined {
  if (body === undefined) return undefined;
  const where = key === undefined ? {} : { key };
  let text: string | undefined;
  try {
    text = json.stringify(body);
  } catch (err) {
    throw new TesseraError(
      'INVALID_VALUE',
      `The value cannot be sent as JSON: ${err instanceof Error ? err.message : String(err)}. Values are JSON: no cycles, and no BigInt unless the client's json option writes it (README, "Numbers past 2^53").`,
      { ...where, httpStatus: 400, cause: err },
    );
  }
  // JSON.stringify drops a field whose value is a function, a symbol or undefined: say so rather
  // than send a body without it.
  const dropped = isRecord(body)
    ? Object.keys(body).filter(
        (name) => body[name] !== undefined && stringified(json, body[name]) === undefined,
      )
    : [];
  if (text === undefined || dropped.length > 0) {
    throw new TesseraError(
      'INVALID_VALUE',
      `The ${dropped.length > 0 ? dropped.join(', ') : 'body'} cannot be sent as JSON (a function or a symbol is not a JSON value).`,
      { ...where, httpStatus: 400 },
    );
  }
  return text;
}

class Timeout extends Error {}

export async function callNode(
  transport: Transport,
  baseUrl: string,
  attempt: Attempt,
  options: CallOptions,
): Promise<NodeAnswer> {
  const where = { node: baseUrl };
  const json = options.json ?? STANDARD_JSON;
  const body = attempt.bodyText ?? serializeBody(attempt.body, undefined, json);
  if (options.signal?.aborted) throw aborted(options.signal, where, false);
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Timeout(`no answer within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  const onAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await transport.request({
      method: attempt.method,
      url: `${baseUrl}${attempt.path}`,
      node: baseUrl,
      signal: controller.signal,
      ...(body === undefined ? {} : { body }),
      ...(attempt.headers === undefined ? {} : { headers: attempt.headers }),
    });
    return {
      status: res.status,
      body: parseBody(res.text, res.status, baseUrl, json),
      retryAfterMs: retryAfter(res.retryAfter),
    };
  } catch (err) {
    if (TesseraError.is(err)) throw err;
    if (options.signal?.aborted) throw aborted(options.signal, where, attempt.method !== 'GET');
    if (controller.signal.reason instanceof Timeout) {
      const advice =
        options.deadlineMs === undefined
          ? 'Raise timeoutMs if the cluster is slow.'
          : `That was what remained of the call's deadline (deadlineMs ${options.deadlineMs}).`;
      throw new TesseraError(
        'REQUEST_TIMEOUT',
        `${baseUrl} did not answer ${attempt.method} within ${options.timeoutMs} ms. ${advice}`,
        { ...where, maybeApplied: attempt.method !== 'GET', cause: err },
      );
    }
    if (err instanceof TransportFailure && !err.reached) {
      throw new TesseraError('NODE_UNREACHABLE', `Could not connect to ${baseUrl}: ${err.message}`, {
        ...where,
        cause: err,
      });
    }
    throw new TesseraError(
      'CONNECTION_FAILED',
      `The connection to ${baseUrl} failed during ${attempt.method}: ${err instanceof Error ? err.message : String(err)}`,
      { ...where, maybeApplied: attempt.method !== 'GET', cause: err },
    );
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The TesseraError for a node's error answer (status >= 400), from its `{ error: { code } }` body. */
export function answerError(answer: NodeAnswer, baseUrl: string): TesseraError {
  const error = isRecord(answer.body) && isRecord(answer.body.error) ? answer.body.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : 'BAD_RESPONSE';
  const message =
    typeof error?.message === 'string'
      ? error.message
      : `${baseUrl} answered HTTP ${answer.status} without a Tessera error body.`;
  return new TesseraError(code, message, {
    httpStatus: answer.status,
    node: baseUrl,
    ...(isRecord(error?.details) ? { details: error.details } : {}),
    ...(answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs }),
  });
}

/** `json.stringify(value)`, undefined when it throws (the whole body's serialization said why). */
function stringified(json: JsonCodec, value: unknown): string | undefined {
  try {
    return json.stringify(value);
  } catch {
    return undefined;
  }
}

function parseBody(text: string, status: number, baseUrl: string, json: JsonCodec): unknown {
  if (text === '') return undefined;
  try {
    return json.parse(text);
  } catch (err) {
    throw new TesseraError(
      'BAD_RESPONSE',
      `${baseUrl} answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 80)}`,
      { httpStatus: status, node: baseUrl, cause: err },
    );
  }
}

function aborted(signal: AbortSignal, where: { node: string }, maybeApplied: boolean): TesseraError {
  return new TesseraError('ABORTED', 'The call was aborted by its AbortSignal.', {
    ...where,
    maybeApplied,
    cause: signal.reason,
  });
}

function retryAfter(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
