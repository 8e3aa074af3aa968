/**
 * How the chaos suite's own HTTP calls (status, admin, local reads, the strong workloads) and its
 * clients reach the nodes: plain `fetch` on loopback; with `--netns`, HTTPS trusting the run's CA
 * with a bearer token (`useNodeAuth`). One setting per process: a run is one cluster.
 */
import { Agent, request } from 'node:https';

export interface NodeAuth {
  /** PEM of the CA that signed the nodes' certificates (https URLs). */
  readonly ca?: string;
  /** Sent as `Authorization: Bearer …`. */
  readonly token?: string;
}

/** Largest answer read from a node. */
const ANSWER_BYTES_MAX = 16 * 1024 * 1024;

let auth: NodeAuth = {};
let agent: Agent | undefined;

/** Calls from now on use `next`; returns a function that puts the previous setting back. */
export function useNodeAuth(next: NodeAuth): () => void {
  const previous = { auth, agent };
  auth = next;
  agent = next.ca === undefined ? undefined : new Agent({ keepAlive: true, maxSockets: 64, ca: next.ca });
  return () => {
    agent?.destroy();
    ({ auth, agent } = previous);
  };
}

/** What a TesseraClient of the run needs besides its nodes: the CA and the token. */
export function clientAuthOptions(): { tls?: { ca: string }; token?: string } {
  return {
    ...(auth.ca === undefined ? {} : { tls: { ca: auth.ca } }),
    ...(auth.token === undefined ? {} : { token: auth.token }),
  };
}

/** `fetch`, with the CA and the token of `useNodeAuth`. Errors look like fetch's (`cause.code`). */
export function nodeFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (auth.token !== undefined && !headers.has('authorization'))
    headers.set('authorization', `Bearer ${auth.token}`);
  if (agent === undefined || !url.startsWith('https:')) return fetch(url, { ...init, headers });
  return httpsFetch(url, init, headers, agent);
}

function httpsFetch(url: string, init: RequestInit, headers: Headers, via: Agent): Promise<Response> {
  return new Promise((resolve, reject) => {
    const fail = (err: unknown): void => reject(new TypeError('fetch failed', { cause: err }));
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: plain(headers),
        agent: via,
        ...(init.signal == null ? {} : { signal: init.signal }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > ANSWER_BYTES_MAX)
            req.destroy(new Error(`answer larger than ${ANSWER_BYTES_MAX} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          const status = res.statusCode ?? 502;
          const body = [101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status }));
        });
      },
    );
    req.on('error', fail);
    req.end(typeof init.body === 'string' ? init.body : undefined);
  });
}

function plain(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
