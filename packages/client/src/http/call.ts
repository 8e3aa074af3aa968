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
  /** Sent as JSON. */
  readonly body?: unknown;
}

export interface NodeAnswer {
  readonly status: number;
  /** Parsed JSON; undefined for an empty body. */
  readonly body: unknown;
  readonly retryAfterMs: number | undefined;
}

export interface CallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

class Timeout extends Error {}

export async function callNode(
  transport: Transport,
  baseUrl: string,
  attempt: Attempt,
  options: CallOptions,
): Promise<NodeAnswer> {
  const where = { node: baseUrl };
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
      signal: controller.signal,
      ...(attempt.body === undefined ? {} : { body: JSON.stringify(attempt.body) }),
    });
    return {
      status: res.status,
      body: parseBody(res.text, res.status, baseUrl),
      retryAfterMs: retryAfter(res.retryAfter),
    };
  } catch (err) {
    if (TesseraError.is(err)) throw err;
    if (options.signal?.aborted) throw aborted(options.signal, where, attempt.method !== 'GET');
    if (controller.signal.reason instanceof Timeout) {
      throw new TesseraError(
        'REQUEST_TIMEOUT',
        `${baseUrl} did not answer ${attempt.method} within ${options.timeoutMs} ms. Raise timeoutMs if the cluster is slow.`,
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

function parseBody(text: string, status: number, baseUrl: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
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
