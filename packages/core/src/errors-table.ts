/**
 * The one table of Tessera's error codes, for the nodes and the client SDK alike: each code's
 * HTTP and gRPC status and a summary. A code is never renamed or reused; docs/errors.md lists
 * every code with exactly these columns (errors-docs.test.ts checks it, both ways).
 */

/** gRPC status codes used by the table (numeric values from the gRPC spec). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
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

/**
 * Who raises a code: `node` codes come in a node's answer (the client raises a few of them
 * itself too, like INVALID_KEY); `client` codes are raised by the client SDK and never sent.
 */
export type ErrorOrigin = 'node' | 'client';

export interface CodeInfo {
  readonly origin: ErrorOrigin;
  /**
   * The HTTP status of the answer that carries the code. Undefined for client codes with no
   * HTTP answer behind them: a failure on the way to a node, or in the calling program.
   */
  readonly http: number | undefined;
  readonly grpc: number;
  /** One line for docs/errors.md: what the code means. */
  readonly summary: string;
}

const node = (http: number, grpc: number, summary: string) =>
  ({ origin: 'node', http, grpc, summary }) as const;
const client = (http: number | undefined, grpc: number, summary: string) =>
  ({ origin: 'client', http, grpc, summary }) as const;

const G = GrpcStatus;

/** The single table from error code to origin, HTTP and gRPC status, and summary. */
export const ERROR_CODES = {
  BAD_REQUEST: node(400, G.INVALID_ARGUMENT, 'The request is malformed.'),
  INVALID_JSON: node(
    400,
    G.INVALID_ARGUMENT,
    'The body is not valid JSON, or holds a key `__proto__` or `constructor.prototype` (refused: prototype poisoning).',
  ),
  INVALID_KEY: node(400, G.INVALID_ARGUMENT, 'The key is empty or longer than 1024 bytes of UTF-8.'),
  INVALID_CONTEXT: node(
    400,
    G.INVALID_ARGUMENT,
    'The context is malformed, tampered with, truncated, or belongs to another key.',
  ),
  INVALID_QUORUM: node(
    400,
    G.INVALID_ARGUMENT,
    'r or w is not a whole number from 1 to N, or timeoutMs is out of range.',
  ),
  NOT_FOUND: node(404, G.NOT_FOUND, 'The key has no live value.'),
  ROUTE_NOT_FOUND: node(404, G.UNIMPLEMENTED, 'No such endpoint.'),
  TOO_MANY_SIBLINGS: node(
    409,
    G.FAILED_PRECONDITION,
    'The write would leave the key with more siblings than siblingsMax.',
  ),
  CLOCK_TOO_LARGE: node(
    409,
    G.FAILED_PRECONDITION,
    "The write would grow the key's version vector past vvEntriesMax.",
  ),
  INVALID_CURSOR: node(
    400,
    G.INVALID_ARGUMENT,
    'The listing cursor is malformed, was edited, or was issued for another prefix or cluster.',
  ),
  VALUE_TOO_LARGE: node(
    413,
    G.RESOURCE_EXHAUSTED,
    "The value or the request body is larger than allowed, or a write would grow the key's siblings past what one replication message carries (about 4 MiB): resolve the siblings with a write that carries the read's context.",
  ),
  REQUEST_TOO_SLOW: node(
    408,
    G.DEADLINE_EXCEEDED,
    'The client did not send the whole request in time; the node closed the connection.',
  ),
  HEADERS_TOO_LARGE: node(
    431,
    G.RESOURCE_EXHAUSTED,
    'The request headers are larger than the node accepts (16 KiB).',
  ),
  UNSUPPORTED_MEDIA_TYPE: node(415, G.INVALID_ARGUMENT, 'The body is not application/json.'),
  PRECONDITION_FAILED: node(
    412,
    G.FAILED_PRECONDITION,
    "A strong key's If-Match or If-None-Match condition does not hold (`details.currentVersion`).",
  ),
  NOT_STRONG_KEY: node(
    400,
    G.INVALID_ARGUMENT,
    'A transaction or condition names a key outside every strong namespace (--strong).',
  ),
  TRANSACTION_CANCELED: node(
    409,
    G.ABORTED,
    'The transaction changed nothing: `details.cancellationReasons` gives the reason per action.',
  ),
  IDEMPOTENT_PARAMETER_MISMATCH: node(
    400,
    G.INVALID_ARGUMENT,
    'The clientRequestToken was used within 10 minutes for a transaction with other actions.',
  ),
  STRONG_UNAVAILABLE: node(
    503,
    G.UNAVAILABLE,
    "No majority of the strong key's primary replicas answered, or its partition is moving; retry.",
  ),
  INSUFFICIENT_REPLICAS: node(503, G.UNAVAILABLE, 'Fewer replicas answered than the quorum needs.'),
  NODE_NOT_READY: node(503, G.UNAVAILABLE, 'The node is starting, stopping, or not yet part of a cluster.'),
  PEER_UNAVAILABLE: node(503, G.UNAVAILABLE, 'A peer node could not be reached.'),
  NODE_LEFT: node(
    503,
    G.UNAVAILABLE,
    'The node left the cluster and handed its data over; send requests to a member (`details.members`).',
  ),
  NODE_DRAINING: node(
    503,
    G.UNAVAILABLE,
    'The node is draining (`tessera admin drain`) and will exit; send requests to another node.',
  ),
  OVERLOADED: node(
    503,
    G.RESOURCE_EXHAUSTED,
    'The node is serving as many requests as it allows; retry after the Retry-After delay.',
  ),
  UNAUTHENTICATED: node(
    401,
    G.UNAUTHENTICATED,
    'No valid credentials: a missing or wrong bearer token, or a peer that failed authentication (docs/security.md).',
  ),
  FORBIDDEN: node(
    403,
    G.PERMISSION_DENIED,
    'The credentials are valid but not allowed this call: an admin route with a client token, or a peer that is not a member.',
  ),
  FAULT_INJECTION_DISABLED: node(
    403,
    G.PERMISSION_DENIED,
    'Fault injection is off on this node; start it with --fault-injection (tests and demos only).',
  ),
  NOT_SUPPORTED: node(501, G.UNIMPLEMENTED, 'The operation is not available in this version of Tessera.'),
  TIMEOUT: node(504, G.DEADLINE_EXCEEDED, 'The request deadline passed.'),
  JOIN_REFUSED: node(
    409,
    G.FAILED_PRECONDITION,
    "The node cannot join: it already belongs to a cluster, its id is taken, or its settings are not the cluster's.",
  ),
  CLUSTER_MISMATCH: node(
    409,
    G.FAILED_PRECONDITION,
    "A peer belongs to another cluster or ring layout, or this node's settings are not its cluster's.",
  ),
  NODE_FENCED: node(
    503,
    G.FAILED_PRECONDITION,
    'This data dir was removed, left or replaced under its id: it serves nothing; rejoin with an empty one.',
  ),
  PROTOCOL_MISMATCH: node(
    409,
    G.FAILED_PRECONDITION,
    'A peer speaks a peer protocol version this node does not serve; nodes must be at most one version apart.',
  ),
  SNAPSHOT_IN_PROGRESS: node(
    409,
    G.FAILED_PRECONDITION,
    'The node is taking a snapshot already (one at a time); wait for it to finish.',
  ),
  DIR_NOT_EMPTY: node(
    409,
    G.FAILED_PRECONDITION,
    'The directory a snapshot or a restore would write exists and is not empty.',
  ),
  SNAPSHOT_INVALID: node(
    400,
    G.INVALID_ARGUMENT,
    'The snapshot has no valid manifest, or its entries do not match its counts and checksum.',
  ),
  DATA_FORMAT_TOO_NEW: node(
    409,
    G.FAILED_PRECONDITION,
    'The data dir or snapshot is in a newer on-disk format than this Tessera reads.',
  ),
  STORAGE_FAILURE: node(
    500,
    G.INTERNAL,
    'The local storage engine failed; nothing a client sent causes this.',
  ),
  INTERNAL: node(500, G.INTERNAL, 'A bug in Tessera; please report it.'),

  SIBLINGS_UNRESOLVED: client(
    409,
    G.FAILED_PRECONDITION,
    'The key has more than one sibling and no resolver was given to merge them (`details.siblings`).',
  ),
  NODE_UNREACHABLE: client(
    undefined,
    G.UNAVAILABLE,
    'No connection could be made to the node: the request surely did not reach it.',
  ),
  CONNECTION_FAILED: client(
    undefined,
    G.UNAVAILABLE,
    'The connection failed after the request may have been sent: a write may have been applied.',
  ),
  REQUEST_TIMEOUT: client(
    undefined,
    G.DEADLINE_EXCEEDED,
    'The node did not answer within `timeoutMs`: a write may have been applied.',
  ),
  ABORTED: client(undefined, G.CANCELLED, "The caller's `AbortSignal` aborted the call."),
  BAD_RESPONSE: client(
    undefined,
    G.INTERNAL,
    "The node answered something that is not the Tessera HTTP API (a proxy's error page, say); `httpStatus` is that answer's.",
  ),
  VALIDATION_FAILED: client(
    400,
    G.INVALID_ARGUMENT,
    "A value given to a collection does not match the collection's schema.",
  ),
  INVALID_STORED_VALUE: client(
    undefined,
    G.FAILED_PRECONDITION,
    "A value stored under a collection's key does not match the schema; the message names the key.",
  ),
  INVALID_ARGUMENT: client(400, G.INVALID_ARGUMENT, 'An argument or option given to the client is invalid.'),
  INVALID_VALUE: client(
    400,
    G.INVALID_ARGUMENT,
    'A value cannot be sent as JSON (a cycle, a function, a BigInt unless the `json` option writes it); raised before anything is sent.',
  ),
  RESOLVER_FAILED: client(
    undefined,
    G.UNKNOWN,
    'The resolver threw or returned `undefined`, or a built-in got values it cannot merge.',
  ),
  CLIENT_CLOSED: client(undefined, G.FAILED_PRECONDITION, 'The client was closed; create a new one.'),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

type CodesOf<O extends ErrorOrigin> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['origin'] extends O ? C : never;
}[ErrorCode];

/** Codes a node answers with. */
export type NodeErrorCode = CodesOf<'node'>;
/** Codes only the client SDK raises. */
export type ClientErrorCode = CodesOf<'client'>;

export const ERROR_CODE_LIST = /* @__PURE__ */ Object.keys(ERROR_CODES) as ErrorCode[];

export const NODE_ERROR_CODE_LIST = /* @__PURE__ */ ERROR_CODE_LIST.filter(
  (code): code is NodeErrorCode => ERROR_CODES[code].origin === 'node',
);

export const CLIENT_ERROR_CODE_LIST = /* @__PURE__ */ ERROR_CODE_LIST.filter(
  (code): code is ClientErrorCode => ERROR_CODES[code].origin === 'client',
);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** A code a node may answer with: what a node accepts from a peer and sends to a client. */
export function isNodeErrorCode(value: unknown): value is NodeErrorCode {
  return isErrorCode(value) && ERROR_CODES[value].origin === 'node';
}

export function isClientErrorCode(value: unknown): value is ClientErrorCode {
  return isErrorCode(value) && ERROR_CODES[value].origin === 'client';
}

/** The code's HTTP status; undefined for client codes with no HTTP answer behind them. */
export function httpStatusOf(code: NodeErrorCode): number;
export function httpStatusOf(code: ErrorCode): number | undefined;
export function httpStatusOf(code: ErrorCode): number | undefined {
  return ERROR_CODES[code].http;
}

export function grpcStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].grpc;
}

/** The error code whose gRPC status is `status`, preferring the most generic one. */
export function codeForGrpcStatus(status: number): NodeErrorCode {
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
