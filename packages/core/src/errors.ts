/**
 * One error type for all of Tessera, with stable codes. A code is never renamed or reused;
 * every code is listed in docs/errors.md (a test checks it).
 */

/** gRPC status codes used by the table (numeric values from the gRPC spec). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

interface CodeInfo {
  readonly http: number;
  readonly grpc: number;
  /** One line for docs/errors.md: what the code means. */
  readonly summary: string;
}

/** The single table from error code to HTTP and gRPC status. */
export const ERROR_CODES = {
  BAD_REQUEST: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, summary: 'The request is malformed.' },
  INVALID_JSON: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT, summary: 'The body is not valid JSON.' },
  INVALID_KEY: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The key is empty or longer than 1024 bytes of UTF-8.',
  },
  INVALID_CONTEXT: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The context is malformed, tampered with, truncated, or belongs to another key.',
  },
  INVALID_QUORUM: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'r or w is not a whole number from 1 to N, or timeoutMs is out of range.',
  },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND, summary: 'The key has no live value.' },
  ROUTE_NOT_FOUND: { http: 404, grpc: GrpcStatus.UNIMPLEMENTED, summary: 'No such endpoint.' },
  TOO_MANY_SIBLINGS: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    summary: 'The write would leave the key with more siblings than siblingsMax.',
  },
  CLOCK_TOO_LARGE: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    summary: "The write would grow the key's version vector past vvEntriesMax.",
  },
  VALUE_TOO_LARGE: {
    http: 413,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The value or the request body is larger than allowed.',
  },
  REQUEST_TOO_SLOW: {
    http: 408,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    summary: 'The client did not send the whole request in time; the node closed the connection.',
  },
  HEADERS_TOO_LARGE: {
    http: 431,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The request headers are larger than the node accepts (16 KiB).',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    summary: 'The body is not application/json.',
  },
  INSUFFICIENT_REPLICAS: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    summary: 'Fewer replicas answered than the quorum needs.',
  },
  NODE_NOT_READY: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    summary: 'The node is starting, stopping, or not yet part of a cluster.',
  },
  PEER_UNAVAILABLE: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    summary: 'A peer node could not be reached.',
  },
  OVERLOADED: {
    http: 503,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    summary: 'The node is serving as many requests as it allows; retry after the Retry-After delay.',
  },
  UNAUTHENTICATED: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    summary: 'No valid credentials: a missing or wrong bearer token, or a peer that failed authentication.',
  },
  FORBIDDEN: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    summary:
      'The credentials are valid but not allowed this call: an admin route with a client token, or a peer that is not a member.',
  },
  FAULT_INJECTION_DISABLED: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    summary: 'Fault injection is off on this node; start it with --fault-injection (tests and demos only).',
  },
  NOT_SUPPORTED: {
    http: 501,
    grpc: GrpcStatus.UNIMPLEMENTED,
    summary: 'The operation is not available in this version of Tessera.',
  },
  TIMEOUT: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED, summary: 'The request deadline passed.' },
  JOIN_REFUSED: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    summary: 'The node cannot join: it already belongs to a cluster, or its id is taken.',
  },
  CLUSTER_MISMATCH: {
    http: 409,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    summary: 'A peer belongs to another cluster or ring layout.',
  },
  STORAGE_FAILURE: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    summary: 'The local storage engine failed; nothing a client sent causes this.',
  },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL, summary: 'A bug in Tessera; please report it.' },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

export type ErrorDetails = Record<string, unknown>;

const BRAND = Symbol.for('tessera.error');

export class TesseraError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TesseraError';
    this.code = code;
    this.details = details;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get grpcStatus(): number {
    return ERROR_CODES[this.code].grpc;
  }

  toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  /** Works across two installed copies of the package, unlike plain `instanceof`. */
  static is(value: unknown): value is TesseraError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].http;
}

export function grpcStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].grpc;
}

/** The error code whose gRPC status is `status`, preferring the most generic one. */
export function codeForGrpcStatus(status: number): ErrorCode {
  switch (status) {
    case GrpcStatus.INVALID_ARGUMENT:
      return 'BAD_REQUEST';
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'TIMEOUT';
    case GrpcStatus.NOT_FOUND:
      return 'NOT_FOUND';
    case GrpcStatus.UNAVAILABLE:
      return 'PEER_UNAVAILABLE';
    case GrpcStatus.UNAUTHENTICATED:
      return 'UNAUTHENTICATED';
    case GrpcStatus.PERMISSION_DENIED:
      return 'FORBIDDEN';
    default:
      return 'INTERNAL';
  }
}
