/**
 * The fetch transport (browsers, Deno, Bun, or Node when undici is not wanted). A browser's
 * fetch does not say why a request failed, so there every network failure counts as "may have
 * reached the node" and writes are not retried on it.
 */
import {
  neverConnected,
  type Transport,
  TransportFailure,
  type TransportRequest,
  type TransportResponse,
} from './types.js';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export function fetchTransport(fetchImpl?: FetchLike): Transport {
  const doFetch: FetchLike = fetchImpl ?? ((url, init) => globalThis.fetch(url, init));
  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      let res: Response;
      try {
        res = await doFetch(req.url, {
          method: req.method,
          signal: req.signal,
          ...(req.body === undefined ? {} : { body: req.body }),
          headers: {
            ...req.headers,
            ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
        });
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason ?? err;
        throw new TransportFailure(`fetch failed: ${describe(err)}`, !neverConnected(err), { cause: err });
      }
      try {
        const text = await res.text();
        return { status: res.status, text, retryAfter: res.headers.get('retry-after') ?? undefined };
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason ?? err;
        throw new TransportFailure(`reading the answer failed: ${describe(err)}`, true, { cause: err });
      }
    },
  };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}
