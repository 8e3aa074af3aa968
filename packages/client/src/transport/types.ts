/**
 * The HTTP transport: one request to one node. The browser entry uses `fetch`; the Node entry a
 * pooled keep-alive undici Agent. A transport only moves bytes; retries, routing and error codes
 * live above it.
 */

export type HttpMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface TransportRequest {
  readonly method: HttpMethod;
  /** Absolute URL. */
  readonly url: string;
  /** JSON text; sent with Content-Type: application/json. */
  readonly body?: string;
  /** Aborts the request (timeout or the caller's signal). */
  readonly signal: AbortSignal;
  /** Extra headers, e.g. `authorization` when the client has a token. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Base URL of the node, the part of `url` before the API path (`http://10.0.0.5:7000`, or a
   * gateway's `https://shop.example/tessera`): the fetch transport checks it before writing to it.
   */
  readonly node?: string;
}

export interface TransportResponse {
  readonly status: number;
  readonly text: string;
  /** The Retry-After header, when present. */
  readonly retryAfter?: string | undefined;
}

export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Releases pooled connections. */
  close?(): Promise<void>;
}

/**
 * A transport failure. `reached: false` only when the request surely never reached the node (no
 * connection could be made, or, in a browser, the node was found unreachable or refusing the
 * page's origin before the request was sent), which is what makes a write safe to send to another
 * node.
 */
export class TransportFailure extends Error {
  constructor(
    message: string,
    readonly reached: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportFailure';
  }
}

/** Error codes (Node's and undici's) meaning no connection was made. */
const NOT_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether an error (or its causes, for fetch's TypeError) says no connection was made. */
export function neverConnected(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const record = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof record.code === 'string' && NOT_CONNECTED.has(record.code)) return true;
    // Node's happy-eyeballs connect gives an AggregateError of per-address failures.
    if (Array.isArray(record.errors) && record.errors.length > 0 && record.errors.every(neverConnected)) {
      return true;
    }
    current = record.cause;
  }
  return false;
}

/** A transport that adds `Authorization: Bearer <token>` to every request it passes on. */
export function withBearerToken(transport: Transport, token: string): Transport {
  const authorization = `Bearer ${token}`;
  return {
    request: (req) => transport.request({ ...req, headers: { ...req.headers, authorization } }),
    ...(transport.close === undefined ? {} : { close: () => transport.close?.() ?? Promise.resolve() }),
  };
}
