/**
 * The HTTP API as an OpenAPI 3.1 document, served at GET /v1/openapi.json (made by
 * openapi-document.ts, loaded on the first request for it: the converter and the answers' schemas
 * cost a node's start about a tenth of its CPU otherwise). `trackRoutes` records what fastify
 * registers, so a test checks the document against the routes, both ways (test/openapi.test.ts).
 */
import type { FastifyInstance } from 'fastify';

/** A route as fastify registered it: method and URL pattern (`/v1/kv/:key`). */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
}

const tracked = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Records every route registered on `app` from now on (HEAD routes fastify adds for GET ones excluded). */
export function trackRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  tracked.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url });
    }
  });
}

/** The routes registered on `app` since `trackRoutes(app)`. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return tracked.get(app) ?? [];
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  let document: string | undefined;
  app.get('/v1/openapi.json', async (_req, reply) => {
    document ??= JSON.stringify((await import('./openapi-document.js')).openApiDocument());
    return reply.type('application/json').send(document);
  });
}
