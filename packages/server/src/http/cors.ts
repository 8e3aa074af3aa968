/**
 * CORS for browser pages that call a node directly (docs/browser.md), with @fastify/cors. Off
 * unless `corsOrigins` lists origins: then a page of a listed origin (any page with `*`) may send
 * the API's requests and read every answer, errors included, and nothing else changes. Preflights
 * are answered before authentication (a browser sends them without the Authorization header) and
 * cached by the browser for PREFLIGHT_MAX_AGE_S, so a page pays one preflight per method and node,
 * not one per write.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE_S = 600;

/** The methods of the API (POST: batch reads and admin calls). */
export const CORS_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'POST'] as const;

/** Request headers a page may send: JSON bodies, bearer tokens, and strong keys' conditions. */
export const CORS_REQUEST_HEADERS = ['content-type', 'authorization', 'if-match', 'if-none-match'] as const;

/**
 * Response headers a page may read besides the CORS-safelisted ones (content-type, …): the client
 * reads Retry-After of an OVERLOADED or NODE_NOT_READY answer to wait before it retries.
 */
export const CORS_EXPOSED_HEADERS = ['retry-after', 'etag'] as const;

/** Registers CORS when `origins` lists any; call before the authentication hook. */
export function registerCors(app: FastifyInstance, origins: readonly string[] | undefined): void {
  if (origins === undefined || origins.length === 0) return;
  void app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_REQUEST_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false,
    // An OPTIONS request that is not a full preflight is answered 204 too, rather than with a
    // text/plain 400 outside the API's error shape.
    strictPreflight: false,
  });
}
