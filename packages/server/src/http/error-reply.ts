/**
 * Error answers of the HTTP API: every error leaves as `{ "error": { code, message, details? } }`
 * with the status from the one code table (core errors.ts), whether fastify or the data path
 * (data-path.ts) answers.
 */
import { TesseraError } from '@tessera/core';
import type { FastifyError, FastifyReply } from 'fastify';
import type { Logger } from '../logger.js';

/** An error as its answer: status, the headers it adds, and the JSON body. */
export function errorAnswer(err: TesseraError): {
  readonly status: number;
  readonly retryAfterS: number | undefined;
  readonly body: { readonly error: ReturnType<TesseraError['toJSON']> };
} {
  const retry = err.code === 'OVERLOADED' || err.code === 'NODE_NOT_READY';
  return { status: err.httpStatus ?? 500, retryAfterS: retry ? 1 : undefined, body: { error: err.toJSON() } };
}

export function sendError(reply: FastifyReply, err: TesseraError): FastifyReply {
  const answer = errorAnswer(err);
  if (answer.retryAfterS !== undefined) reply.header('retry-after', String(answer.retryAfterS));
  return reply.code(answer.status).type('application/json').send(answer.body);
}

/**
 * 5xx codes that are the cluster's state, not a fault of the node (a quorum not met, a deadline, a
 * strong key's majority not reached): the answer says it, no error log with a stack trace.
 */
const EXPECTED_UNAVAILABLE: ReadonlySet<string> = new Set([
  'INSUFFICIENT_REPLICAS',
  'TIMEOUT',
  'STRONG_UNAVAILABLE',
]);

/** Fastify's own errors (and anything unexpected) as coded errors; logs what is a fault of the node. */
export function toTesseraError(thrown: unknown, log: Logger): TesseraError {
  if (TesseraError.is(thrown)) {
    if ((thrown.httpStatus ?? 500) >= 500 && !EXPECTED_UNAVAILABLE.has(thrown.code)) {
      log.error({ err: thrown }, 'request failed');
    }
    return thrown;
  }
  const err = (thrown instanceof Error ? thrown : new Error(String(thrown))) as FastifyError;
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TesseraError(
        'VALUE_TOO_LARGE',
        'The request body is larger than this node accepts. Send a smaller value.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TesseraError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the body as JSON with the header Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new TesseraError(
        'INVALID_JSON',
        'The body is empty but Content-Type says JSON. Send a JSON object, or no Content-Type.',
      );
    case 'FST_ERR_BAD_URL':
      return new TesseraError(
        'BAD_REQUEST',
        'The URL path is not valid percent-encoded UTF-8. Encode keys with encodeURIComponent.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new TesseraError(
        'INVALID_KEY',
        `The key is longer than the 1024 bytes of UTF-8 a key may have.`,
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // The parser refuses some valid JSON too (secure-json-parse: prototype poisoning).
      return new TesseraError(
        'INVALID_JSON',
        'The body is not valid JSON, or it holds a key __proto__ (or a key constructor with a key ' +
          'prototype inside), which this server refuses (prototype poisoning). Send valid JSON without such keys.',
      );
  }
  if (err instanceof SyntaxError || err.statusCode === 400) {
    return new TesseraError('INVALID_JSON', `The body is not valid JSON: ${err.message}`);
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new TesseraError('BAD_REQUEST', err.message);
  }
  log.error({ err }, 'unexpected error');
  return new TesseraError(
    'INTERNAL',
    'An unexpected error happened in the node; it is logged. Please report it.',
  );
}
