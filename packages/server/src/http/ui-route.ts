/** GET /ui: a live picture of the ring for operators (a static page that polls /v1/status). */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const PAGE = readFileSync(new URL('../../ui/ring.html', import.meta.url));

export function registerUiRoute(app: FastifyInstance): void {
  app.get('/ui', async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(PAGE),
  );
}
