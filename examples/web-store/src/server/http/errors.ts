/**
 * Every error the store answers, in one table: a stable code and its HTTP status. Bodies have the
 * same shape as Tessera's own, `{ "error": { "code", "message", "details"? } }`.
 */
import { TesseraError } from '@tessera/client';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ErrorBody } from '../../shared/api.js';

export const STORE_ERRORS = {
  INVALID_REQUEST: 400,
  INVALID_JSON: 400,
  INVALID_CART_ID: 400,
  INVALID_QUANTITY: 400,
  INVALID_IDEMPOTENCY_KEY: 400,
  UNKNOWN_NODE: 400,
  UNKNOWN_PRODUCT: 404,
  NOT_FOUND: 404,
  CART_EMPTY: 409,
  SOLD_OUT: 409,
  CHECKOUT_CONFLICT: 409,
  NODE_CONTROL_UNAVAILABLE: 409,
  FAULT_INJECTION_UNAVAILABLE: 409,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  STORE_UNAVAILABLE: 503,
  STRONG_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type StoreErrorCode = keyof typeof STORE_ERRORS;

export class StoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  get status(): number {
    return STORE_ERRORS[this.code];
  }
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** Fastify's own errors for what a client sent, mapped to the store's codes. */
const FASTIFY_CODES: Record<string, StoreErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
};

function toStoreError(err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  if (TesseraError.is(err)) {
    return new StoreError(
      'STORE_UNAVAILABLE',
      `Tessera could not serve the request (${err.code}): ${err.message}`,
      { tessera: err.code, ...(err.nodeId === undefined ? {} : { nodeId: err.nodeId }) },
    );
  }
  const fastifyCode = (err as Partial<FastifyError>).code;
  const mapped = fastifyCode === undefined ? undefined : FASTIFY_CODES[fastifyCode];
  if (mapped !== undefined) return new StoreError(mapped, (err as Error).message);
  if (err instanceof SyntaxError) return new StoreError('INVALID_JSON', 'The body is not valid JSON.');
  const status = (err as Partial<FastifyError>).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new StoreError('INVALID_REQUEST', (err as Error).message);
  }
  return new StoreError('INTERNAL', 'Something went wrong in the store; see its log.');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    const storeError = toStoreError(err);
    if (storeError.code === 'INTERNAL' || storeError.code === 'STORE_UNAVAILABLE') {
      req.log.error({ err }, storeError.message);
    }
    return reply
      .status(storeError.status)
      .send(errorBody(storeError.code, storeError.message, storeError.details));
  });
  app.setNotFoundHandler((req, reply) =>
    reply.status(404).send(errorBody('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`)),
  );
}
