/**
 * The fetch transport (browsers, Deno, Bun, or Node when undici is not wanted).
 *
 * A browser's fetch fails with the same bare TypeError whether no connection could be made, the
 * node refused the page's origin (CORS), or the connection broke after the request was sent; it
 * never says which. For a GET it does not matter (a read changes nothing), but a write that may
 * have been applied must not be sent again blindly, and one that surely was not may. So in a
 * browser this transport checks a node before writing to it: before the first write to a node,
 * and again after any request to it failed (no answer, or a 5xx), it sends `GET /health` (a CORS "simple" request, no
 * preflight, no token). A node that does not answer the check (unreachable, or its answer is
 * withheld because it does not allow the page's origin) does not get the write: the failure says
 * "not sent" (NODE_UNREACHABLE, maybeApplied: false) and the write may go to another node. A write
 * sent to a node that answered the check and then fails counts as "may have been applied"
 * (CONNECTION_FAILED). A failed GET counts as "not reached" until the node has answered this
 * client once. Limits: a node that answers the check but whose preflight for the write fails (a
 * gateway that allows GET but not PUT, say) is reported as "may have been applied", the safe side.
 *
 * Elsewhere (Node's fetch, checkBeforeWrite: false) the error's cause says whether a connection
 * was made (ECONNREFUSED and the like), as with the undici transport.
 */
import { inBrowser, pageOrigin } from './environment.js';
import {
  neverConnected,
  type Transport,
  TransportFailure,
  type TransportRequest,
  type TransportResponse,
} from './types.js';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface FetchTransportOptions {
  /**
   * Check a node with `GET /health` before the first write to it and after a failure (see
   * above), so that a refusal is told from a failure after sending. Default: true in a browser.
   */
  readonly checkBeforeWrite?: boolean;
}

export function fetchTransport(fetchImpl?: FetchLike, options: FetchTransportOptions = {}): Transport {
  const doFetch: FetchLike = fetchImpl ?? ((url, init) => globalThis.fetch(url, init));
  const check = options.checkBeforeWrite ?? inBrowser();
  /** Nodes that answered this transport since their last failure. */
  const answered = new Set<string>();

  /** Resolves when `node` answers GET /health below 500; else a failure that says nothing was sent. */
  async function checkNode(node: string, signal: AbortSignal): Promise<void> {
    let res: Response;
    try {
      res = await doFetch(`${node}/health`, { method: 'GET', signal });
      await res.text();
    } catch (err) {
      if (signal.aborted) throw signal.reason ?? err;
      throw new TransportFailure(
        `${node} did not answer a check before the write (${describe(err)}), so the write was not sent. ${refusalHint()}`,
        false,
        { cause: err },
      );
    }
    if (res.status >= 500) {
      throw new TransportFailure(
        `${node} answered a check before the write with HTTP ${res.status}, so the write was not sent.`,
        false,
      );
    }
    answered.add(node);
  }

  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      const node = req.node ?? new URL(req.url).origin;
      let sentToAnswering = answered.has(node);
      if (check && req.method !== 'GET' && !sentToAnswering) {
        await checkNode(node, req.signal);
        sentToAnswering = true;
      }
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
        answered.delete(node);
        const notSent = neverConnected(err) || (check && !sentToAnswering);
        const hint = check && notSent ? ` ${refusalHint()}` : '';
        throw new TransportFailure(`fetch failed: ${describe(err)}.${hint}`, !notSent, { cause: err });
      }
      // A 5xx (a gateway with no node behind it, say) is checked again before the next write.
      if (res.status >= 500) answered.delete(node);
      else answered.add(node);
      try {
        const text = await res.text();
        return { status: res.status, text, retryAfter: res.headers.get('retry-after') ?? undefined };
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason ?? err;
        answered.delete(node);
        throw new TransportFailure(`reading the answer failed: ${describe(err)}`, true, { cause: err });
      }
    },
  };
}

/** What a browser's bare "Failed to fetch" may mean, and what to do. */
function refusalHint(): string {
  const origin = pageOrigin();
  return `The node is unreachable from here, or it does not allow this page's origin${origin === undefined ? '' : ` (${origin})`}: start the nodes with --cors-origin ${origin ?? '<page origin>'}, or serve them through a gateway on the page's own origin (docs/browser.md).`;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}
