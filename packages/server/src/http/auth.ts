/**
 * Bearer tokens for the HTTP API (docs/security.md). Three kinds of routes:
 * - open: /health and the static /ui page (liveness probes and load balancers need no token);
 * - client: everything else outside /v1/admin/*; the client token or the admin token;
 * - admin: /v1/admin/* (join, leave, remove, fault injection); the admin token only.
 * A missing or wrong token is 401 UNAUTHENTICATED; the client token on an admin route is 403.
 * Tokens are compared in constant time and never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { TesseraError } from '@tessera/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export type Access = 'open' | 'client' | 'admin';

export interface HttpTokens {
  readonly token?: string | undefined;
  readonly adminToken?: string | undefined;
}

const OPEN_ROUTES = new Set(['/health', '/ui']);
/** Refusals logged per minute at most, so a scanner cannot flood the log. */
const REFUSALS_LOGGED_PER_MINUTE = 10;

/** Which tokens a route needs, by the route pattern it matched (or the raw path, for a 404). */
export function accessOf(route: string): Access {
  if (OPEN_ROUTES.has(route)) return 'open';
  return route === '/v1/admin' || route.startsWith('/v1/admin/') ? 'admin' : 'client';
}

/** The token in `Authorization: Bearer <token>`, or undefined without one. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

/** Compares in time that does not depend on where the two differ (both hashed to 32 bytes first). */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function registerAuth(app: FastifyInstance, tokens: HttpTokens): void {
  if (tokens.token === undefined && tokens.adminToken === undefined) return;
  let windowStartMs = 0;
  let logged = 0;
  const logRefusal = (req: FastifyRequest, code: string, path: string): void => {
    const nowMs = Date.now();
    if (nowMs - windowStartMs > 60_000) {
      windowStartMs = nowMs;
      logged = 0;
    }
    if (logged++ < REFUSALS_LOGGED_PER_MINUTE)
      req.log.warn({ code, method: req.method, path, remote: req.ip }, 'request refused: credentials');
  };
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const access = accessOf(req.routeOptions.url ?? path);
    const needed = access === 'admin' ? tokens.adminToken : access === 'client' ? tokens.token : undefined;
    if (access === 'open' || needed === undefined) return;
    const presented = bearerToken(req.headers.authorization);
    const isAdmin =
      presented !== undefined && tokens.adminToken !== undefined && sameSecret(presented, tokens.adminToken);
    const isClient =
      presented !== undefined && tokens.token !== undefined && sameSecret(presented, tokens.token);
    if (isAdmin || (access === 'client' && isClient)) return;
    if (isClient) {
      logRefusal(req, 'FORBIDDEN', path);
      throw new TesseraError(
        'FORBIDDEN',
        'This route needs the admin token; the client token is not allowed here (docs/security.md).',
      );
    }
    logRefusal(req, 'UNAUTHENTICATED', path);
    reply.header('www-authenticate', 'Bearer realm="tessera"');
    throw new TesseraError(
      'UNAUTHENTICATED',
      presented === undefined
        ? `This node needs a token: send the header "Authorization: Bearer <token>"${access === 'admin' ? ' with the admin token' : ''}.`
        : 'The bearer token is not valid for this node. Check the token you were given (docs/security.md).',
    );
  });
}
