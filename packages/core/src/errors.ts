/**
 * One error class for all of Tessera, nodes and client SDK alike, with the stable codes of
 * ./errors-table.ts. `TesseraError.is(err)` and `err instanceof TesseraError` recognise an error
 * made by any package of the family and by any installed copy of it, through a global brand.
 */
import { ERROR_CODES, type ErrorCode, GrpcStatus, isErrorCode } from './errors-table.js';

export * from './errors-table.js';

export type ErrorDetails = Record<string, unknown>;

/** What is known of the call that failed; the client fills these in, a node leaves them unset. */
export interface ErrorFacts {
  /** The HTTP status of the node's answer; by default the code's status in ERROR_CODES. */
  readonly httpStatus?: number | undefined;
  /** Id of the node that answered or was tried, when known. */
  readonly nodeId?: string | undefined;
  /** Base URL of that node. */
  readonly node?: string | undefined;
  /** The key the call was about. */
  readonly key?: string | undefined;
  /** For writes: true when the write may have been applied although the call failed. */
  readonly maybeApplied?: boolean | undefined;
  /** How many HTTP attempts the call made (default 1). */
  readonly attempts?: number | undefined;
  /** Retry-After from the node, in milliseconds. */
  readonly retryAfterMs?: number | undefined;
}

export interface TesseraErrorOptions extends ErrorFacts {
  readonly cause?: unknown;
}

/** Facts, details and a cause to add to an error with `with()`. */
export interface ErrorAdditions extends TesseraErrorOptions {
  readonly details?: ErrorDetails | undefined;
}

const BRAND = Symbol.for('tessera.error');
/** The brand of @tessera/client 0.1's own class: copies of that version check it. */
const CLIENT_BRAND = Symbol.for('tessera.client.error');

export class TesseraError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** HTTP status: the node's answer's, or the code's (undefined for client codes without one). */
  readonly httpStatus: number | undefined;
  readonly nodeId: string | undefined;
  readonly node: string | undefined;
  readonly key: string | undefined;
  readonly maybeApplied: boolean;
  readonly attempts: number;
  readonly retryAfterMs: number | undefined;
  readonly [BRAND] = true;
  readonly [CLIENT_BRAND] = true;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options: TesseraErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TesseraError';
    this.code = code;
    this.details = details;
    // A code from a newer node that this copy does not know has no row: the answer's status stands.
    this.httpStatus = options.httpStatus ?? (isErrorCode(code) ? ERROR_CODES[code].http : undefined);
    this.nodeId = options.nodeId;
    this.node = options.node;
    this.key = options.key;
    this.maybeApplied = options.maybeApplied ?? false;
    this.attempts = options.attempts ?? 1;
    this.retryAfterMs = options.retryAfterMs;
  }

  get grpcStatus(): number {
    return isErrorCode(this.code) ? ERROR_CODES[this.code].grpc : GrpcStatus.UNKNOWN;
  }

  /** @deprecated Use `httpStatus`, the same value (its name in @tessera/client 0.1). */
  get status(): number | undefined {
    return this.httpStatus;
  }

  /**
   * A copy with more facts: known ones win, except `attempts` (the latest count) and
   * `maybeApplied` (true if either says so).
   */
  with(more: ErrorAdditions): TesseraError {
    return new TesseraError(this.code, this.message, this.details ?? more.details, {
      httpStatus: this.httpStatus ?? more.httpStatus,
      nodeId: this.nodeId ?? more.nodeId,
      node: this.node ?? more.node,
      key: this.key ?? more.key,
      maybeApplied: this.maybeApplied || (more.maybeApplied ?? false),
      attempts: more.attempts ?? this.attempts,
      retryAfterMs: this.retryAfterMs ?? more.retryAfterMs,
      cause: this.cause ?? more.cause,
    });
  }

  /** The error as a node sends it in its body: no stack, name, cause or facts of the call. */
  toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  /**
   * Whether `value` is a TesseraError (with that `code`, if given), made by any package of the
   * family and any installed copy of it, which plain `instanceof` on a class cannot tell.
   */
  static is(value: unknown, code?: string): value is TesseraError {
    if (typeof value !== 'object' || value === null) return false;
    return (
      (value as Record<symbol, unknown>)[BRAND] === true &&
      (code === undefined || (value as TesseraError).code === code)
    );
  }

  /** `instanceof TesseraError` checks the brand too; a subclass of yours keeps plain `instanceof`. */
  static override [Symbol.hasInstance](value: unknown): value is TesseraError {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, maybe a subclass.
    if (this !== TesseraError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return TesseraError.is(value);
  }
}
