/**
 * The page and its files. `/` sends a visitor to their own cart (`/c/<id>`, remembered in a
 * cookie); the address of that page is the cart's share link: opened in another browser or tab,
 * it shows the same cart. Product pictures are drawn by the store; the page's script is the
 * compiled browser code in dist/web.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { drawing } from '../catalog/drawings.js';
import { CART_ID } from './input.js';

/** The package root: this file is src/server/http/pages.ts or dist/server/http/pages.js. */
const ROOT = new URL('../../../', import.meta.url);
const PUBLIC_DIR = fileURLToPath(new URL('public/', ROOT));
const WEB_DIR = fileURLToPath(new URL('dist/web/', ROOT));
const COOKIE = 'tessera_cart';
const COOKIE_MAX_AGE_S = 365 * 24 * 3600;

function cookieCart(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === COOKIE && value !== undefined && CART_ID.test(value)) return value;
  }
  return undefined;
}

export function newCartId(): string {
  return randomBytes(9).toString('base64url');
}

export async function registerPages(app: FastifyInstance): Promise<void> {
  const page = await readFile(join(PUBLIC_DIR, 'index.html'), 'utf8');

  await app.register(fastifyStatic, { root: PUBLIC_DIR, prefix: '/assets/', index: false });
  await app.register(fastifyStatic, { root: WEB_DIR, prefix: '/js/', decorateReply: false, index: false });

  app.get('/', async (req, reply) => {
    const cartId = cookieCart(req) ?? newCartId();
    void reply.header(
      'set-cookie',
      `${COOKIE}=${cartId}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; SameSite=Lax; HttpOnly`,
    );
    return reply.redirect(`/c/${cartId}`, 302);
  });

  app.get('/c/:cartId', async (req, reply) => {
    const { cartId } = req.params as { cartId: string };
    if (!CART_ID.test(cartId)) return reply.redirect('/', 302);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  });

  app.get('/images/:file', async (req, reply) => {
    const { file } = req.params as { file: string };
    const svg = file.endsWith('.svg') ? drawing(file.slice(0, -4)) : undefined;
    if (svg === undefined) return reply.callNotFound();
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=3600').send(svg);
  });

  app.get('/health', async () => ({ status: 'ok' }));
}
