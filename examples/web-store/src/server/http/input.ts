/** Checking what a request carries, once, at the edge: zod schemas and coded 4xx errors. */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Catalog } from '../catalog/catalog.js';
import { StoreError, type StoreErrorCode } from './errors.js';

export const CART_ID = /^[A-Za-z0-9_-]{6,40}$/;
export const QUANTITY_MAX = 99;

const cartId = z.string().regex(CART_ID);
const productId = z.string().min(1).max(64);
const nodeId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/);

export const schemas = {
  cartParams: z.object({ cartId }),
  itemParams: z.object({ cartId, productId }),
  nodeParams: z.object({ nodeId }),
  add: z.object({ productId, quantity: z.number().int().min(1).max(QUANTITY_MAX).default(1) }).strict(),
  set: z.object({ quantity: z.number().int().min(0).max(QUANTITY_MAX) }).strict(),
  checkout: z.object({ idempotencyKey: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/) }).strict(),
  split: z.object({ isolate: nodeId }).strict(),
  empty: z.object({}).strict(),
};

/** The field a failed check is about decides the code: a clear one for the usual mistakes. */
const CODE_BY_FIELD: Record<string, StoreErrorCode> = {
  cartId: 'INVALID_CART_ID',
  quantity: 'INVALID_QUANTITY',
  idempotencyKey: 'INVALID_IDEMPOTENCY_KEY',
};

export function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const field = String(result.error.issues[0]?.path[0] ?? '');
  const code = CODE_BY_FIELD[field] ?? 'INVALID_REQUEST';
  const message =
    code === 'INVALID_QUANTITY'
      ? `A quantity is a whole number up to ${QUANTITY_MAX}: at least 1 to add, 0 or more to set.`
      : code === 'INVALID_CART_ID'
        ? 'A cart id is 6 to 40 letters, digits, "-" or "_".'
        : code === 'INVALID_IDEMPOTENCY_KEY'
          ? 'An idempotency key is 8 to 64 letters, digits, "-" or "_": send the same one when you retry.'
          : `Invalid ${what}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`;
  throw new StoreError(code, message, { issues });
}

export function knownProduct(catalog: Catalog, productId: string): string {
  if (!catalog.has(productId)) {
    throw new StoreError('UNKNOWN_PRODUCT', `There is no product "${productId}" in the catalog.`);
  }
  return productId;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The node the tab asked for (header `x-tessera-node`), "auto" by default. */
export function askedNode(req: FastifyRequest): string {
  const value = header(req, 'x-tessera-node');
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  return parse(nodeId, value, 'x-tessera-node header');
}

const tabId = z.string().regex(/^[A-Za-z0-9_-]{6,40}$/);

/** The asking tab's id (header `x-tessera-tab`, optional): which tab has a cart open and wrote to it. */
export function askedTab(req: FastifyRequest): string | undefined {
  const value = header(req, 'x-tessera-tab');
  return value === undefined || value === '' ? undefined : parse(tabId, value, 'x-tessera-tab header');
}

/** Who asked: the node and the tab. */
export function asker(req: FastifyRequest): { node: string; tab: string | undefined } {
  return { node: askedNode(req), tab: askedTab(req) };
}
