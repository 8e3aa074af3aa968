/**
 * The Node transport: one undici Agent keeps a pool of keep-alive connections per node, so a
 * request does not pay for a TCP handshake. Imported only by the Node entry (src/node.ts).
 */
import { Agent } from 'undici';
import { neverConnected, type Transport, TransportFailure, type TransportRequest } from './types.js';

export interface PoolOptions {
  /** Connections kept per node. Default 64. */
  readonly connections?: number;
  /** How long an idle connection is kept, in ms. Default 30 000 (the node keeps them 72 s). */
  readonly keepAliveTimeoutMs?: number;
  /** How long to wait for a TCP connection, in ms. Default 2000. */
  readonly connectTimeoutMs?: number;
}

/** TLS settings for https node URLs (Node only; a browser uses its own trust store). */
export interface TlsOptions {
  /** PEM of the CA that signed the nodes' certificates, when it is not a public one. */
  readonly ca?: string | Uint8Array;
  /** A client certificate and key, for nodes that require one (`--http-tls-ca` on the node). */
  readonly cert?: string | Uint8Array;
  readonly key?: string | Uint8Array;
}

export function undiciTransport(options: PoolOptions = {}, tls: TlsOptions = {}): Transport {
  const agent = new Agent({
    connections: options.connections ?? 64,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs ?? 30_000, 60_000),
    connect: {
      timeout: options.connectTimeoutMs ?? 2_000,
      ...(tls.ca === undefined ? {} : { ca: pem(tls.ca) }),
      ...(tls.cert === undefined ? {} : { cert: pem(tls.cert) }),
      ...(tls.key === undefined ? {} : { key: pem(tls.key) }),
    },
  });
  return {
    async request(req: TransportRequest) {
      const url = new URL(req.url);
      try {
        const res = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: req.method,
          signal: req.signal,
          // A blind put is not idempotent in Tessera (it makes a sibling): never let undici replay it.
          idempotent: req.method === 'GET',
          ...(req.body === undefined ? {} : { body: req.body }),
          headers: {
            ...req.headers,
            ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
        });
        const text = await res.body.text();
        const retryAfter = res.headers['retry-after'];
        return {
          status: res.statusCode,
          text,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        };
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason ?? err;
        const message = err instanceof Error ? err.message : String(err);
        throw new TransportFailure(`request to ${url.origin} failed: ${message}`, !neverConnected(err), {
          cause: err,
        });
      }
    },
    async close() {
      await agent.close();
    },
  };
}

function pem(value: string | Uint8Array): string | Buffer {
  return typeof value === 'string' ? value : Buffer.from(value);
}
