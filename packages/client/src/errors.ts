/**
 * The client's one error type. `code` is stable: either a server code (from the HTTP error body
 * `error.code`, listed in docs/errors.md) or one of the client codes below (listed in the client
 * README). Codes are never renamed or reused.
 */
import type { ErrorCode as ServerErrorCode } from '@tessera/core';

export type { ServerErrorCode };

/** Codes the client raises itself; each is documented in packages/client/README.md. */
export const CLIENT_ERROR_CODES = {
  SIBLINGS_UNRESOLVED: 'The key has more than one sibling and no resolver was given to merge them.',
  NODE_UNREACHABLE: 'No connection could be made to the node: the request surely did not reach it.',
  CONNECTION_FAILED:
    'The connection failed after the request may have been sent: a write may have been applied.',
  REQUEST_TIMEOUT: 'The node did not answer within timeoutMs: a write may have been applied.',
  ABORTED: "The caller's AbortSignal aborted the call.",
  BAD_RESPONSE: 'The node answered something that is not the Tessera HTTP API.',
  VALIDATION_FAILED: "A value given to a collection does not match the collection's schema.",
  INVALID_STORED_VALUE: "A value stored under a collection's key does not match the collection's schema.",
  INVALID_ARGUMENT: 'An argument or option given to the client is invalid.',
  RESOLVER_FAILED: 'The resolver threw or returned a value it cannot have meant to store.',
  CLIENT_CLOSED: 'The client was closed.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;

/**
 * Every code a `TesseraError` from this package may carry. A newer server may send a code this
 * client does not know yet; it is passed through as is, hence the open string.
 */
export type TesseraErrorCode = ServerErrorCode | ClientErrorCode | (string & {});

export interface TesseraErrorInit {
  /** HTTP status of the node's answer, when a node answered. */
  readonly status?: number;
  /** Id of the node that answered or was tried (when the client knows it). */
  readonly nodeId?: string;
  /** Base URL of that node. */
  readonly node?: string;
  /** The key the call was about. */
  readonly key?: string;
  /** For writes: true when the write may have been applied although the call failed. */
  readonly maybeApplied?: boolean;
  /** How many HTTP attempts the call made. */
  readonly attempts?: number;
  /** Retry-After from the node, in milliseconds. */
  readonly retryAfterMs?: number;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

const BRAND = Symbol.for('tessera.client.error');

export class TesseraError extends Error {
  readonly code: TesseraErrorCode;
  readonly status: number | undefined;
  readonly nodeId: string | undefined;
  readonly node: string | undefined;
  readonly key: string | undefined;
  readonly maybeApplied: boolean;
  readonly attempts: number;
  readonly retryAfterMs: number | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly [BRAND] = true;

  constructor(code: TesseraErrorCode, message: string, init: TesseraErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TesseraError';
    this.code = code;
    this.status = init.status;
    this.nodeId = init.nodeId;
    this.node = init.node;
    this.key = init.key;
    this.maybeApplied = init.maybeApplied ?? false;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs;
    this.details = init.details;
  }

  /** A copy with more facts filled in (the first value given wins for node, status and key). */
  with(init: TesseraErrorInit): TesseraError {
    return new TesseraError(this.code, this.message, {
      status: this.status ?? init.status,
      nodeId: this.nodeId ?? init.nodeId,
      node: this.node ?? init.node,
      key: this.key ?? init.key,
      maybeApplied: this.maybeApplied || (init.maybeApplied ?? false),
      attempts: init.attempts ?? this.attempts,
      retryAfterMs: this.retryAfterMs ?? init.retryAfterMs,
      details: this.details ?? init.details,
      cause: this.cause ?? init.cause,
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      nodeId: this.nodeId,
      node: this.node,
      key: this.key,
      maybeApplied: this.maybeApplied,
      attempts: this.attempts,
      details: this.details,
    };
  }

  /** Works across two installed copies of the package, unlike plain `instanceof`. */
  static is(value: unknown, code?: TesseraErrorCode): value is TesseraError {
    const branded =
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
    return branded && (code === undefined || (value as TesseraError).code === code);
  }
}

export function isClientErrorCode(code: string): code is ClientErrorCode {
  return Object.hasOwn(CLIENT_ERROR_CODES, code);
}
