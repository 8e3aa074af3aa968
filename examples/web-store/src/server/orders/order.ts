/**
 * An order and where it is kept: `orders/<orderId>` in the strong namespace `orders` (written once,
 * with ifAbsent, by the checkout transaction), and the ids of a cart's orders under the plain key
 * `cart-orders:<cartId>` (a list that only grows, merged by union).
 */
import { createHash } from 'node:crypto';
import { resolvers } from '@tessera/client';
import { z } from 'zod';
import type { Order } from '../../shared/api.js';

export const orderKey = (orderId: string): string => `orders/${orderId}`;
export const cartOrdersKey = (cartId: string): string => `cart-orders:${cartId}`;

export const orderSchema = z.object({
  id: z.string(),
  cartId: z.string(),
  lines: z.array(
    z.object({ productId: z.string(), name: z.string(), quantity: z.number(), priceCents: z.number() }),
  ),
  totalCents: z.number(),
  createdAt: z.string(),
  consumed: z.array(z.string()),
});

export const isOrder = (value: unknown): value is Order => orderSchema.safeParse(value).success;

export const resolveIds = resolvers.union<string[]>();

/** The order's id: the same for the same cart and idempotency key, so a retry finds the order. */
export function orderIdFor(cartId: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${cartId}\n${idempotencyKey}`).digest('hex').slice(0, 16);
}
