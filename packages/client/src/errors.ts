/**
 * The client's face of Tessera's one error class (@tessera/core): the same brand, fields and
 * `is()`, so `instanceof` and `TesseraError.is` hold for an error from the client, from core or
 * from another installed copy of either. Only the constructor differs: it takes the facts of the
 * call in one object, as the client always did. `code` is a node's code (from the HTTP error body,
 * passed through as is even when a newer node sends one this version does not know) or a client
 * code; every code is in `ERROR_CODES` and docs/errors.md.
 */
import {
  CLIENT_ERROR_CODE_LIST,
  type ClientErrorCode,
  TesseraError as CoreTesseraError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorDetails,
  type ErrorFacts,
  type NodeErrorCode,
  type TesseraErrorOptions,
} from '@tessera/core';

export type { ClientErrorCode };
/** The codes a node answers with. */
export type ServerErrorCode = NodeErrorCode;

/** Codes the client raises itself, with their summaries (the client rows of `ERROR_CODES`). */
export const CLIENT_ERROR_CODES: { readonly [C in ClientErrorCode]: string } =
  /* @__PURE__ */ Object.fromEntries(
    CLIENT_ERROR_CODE_LIST.map((code) => [code, ERROR_CODES[code].summary]),
  ) as { readonly [C in ClientErrorCode]: string };

/** Every code this version knows, and any other string (a code from a newer node). */
export type TesseraErrorCode = ErrorCode | (string & {});

export interface TesseraErrorInit extends TesseraErrorOptions {
  /** @deprecated Use `httpStatus`. */
  readonly status?: number | undefined;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/** What `JSON.stringify` shows of a client's error; an error from core shows the first three. */
export interface TesseraErrorJson extends ErrorFacts {
  readonly name?: string;
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: ErrorDetails | undefined;
}

export class TesseraError extends CoreTesseraError {
  constructor(code: TesseraErrorCode, message: string, init: TesseraErrorInit = {}) {
    const { status, details, ...options } = init;
    super(code as ErrorCode, message, details, { ...options, httpStatus: options.httpStatus ?? status });
  }

  /** For logs: the code, message and every fact of the call. */
  override toJSON(): TesseraErrorJson {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      httpStatus: this.httpStatus,
      nodeId: this.nodeId,
      node: this.node,
      key: this.key,
      maybeApplied: this.maybeApplied,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
      details: this.details,
    };
  }

  /** Like the core class's, and the copy is of this class (for its `toJSON`). */
  override with(more: TesseraErrorInit): TesseraError {
    const { status, ...rest } = more;
    const e = super.with({ ...rest, httpStatus: rest.httpStatus ?? status });
    return new TesseraError(e.code, e.message, {
      httpStatus: e.httpStatus,
      nodeId: e.nodeId,
      node: e.node,
      key: e.key,
      maybeApplied: e.maybeApplied,
      attempts: e.attempts,
      retryAfterMs: e.retryAfterMs,
      details: e.details,
      cause: e.cause,
    });
  }

  /** The brand, like the core class: an error from any package or copy of the family. */
  static override [Symbol.hasInstance](value: unknown): value is TesseraError {
    return CoreTesseraError.is(value);
  }
}
