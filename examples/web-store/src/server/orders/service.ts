/**
 * Checkout, exactly once. The order's id is derived from the cart and the idempotency key the page
 * sends with every press of the button (and every retry), so pressing twice or retrying finds the
 * order already stored under `order:<id>` and places nothing new. The order is written first,
 * then the lines it took are removed from the cart with the cart read's context; a retry after a
 * failure in between finds the order and finishes the removal. Lines added concurrently (another
 * tab) are not in the order and stay in the cart.
 */
import { createHash } from 'node:crypto';
import { type Cart, cart, type Resolver, resolvers } from '@tessera/client';
import { z } from 'zod';
import type { CheckoutResult, Order, OrderLine } from '../../shared/api.js';
import { type Asker, type CartService, cartKey, resolveCart } from '../cart/service.js';
import { withStored } from '../cart/stored.js';
import type { Catalog } from '../catalog/catalog.js';
import { merge, type NodeSession, type StoreAccess } from '../cluster/access.js';
import { StoreError } from '../http/errors.js';
import type { StoryBook } from '../story/book.js';
import type { KeyLock } from '../util/key-lock.js';

export const orderKey = (orderId: string): string => `order:${orderId}`;
export const ordersKey = (cartId: string): string => `orders:${cartId}`;

const ORDERS_SHOWN_MAX = 20;
/** Orders of one cart looked at, at most (the most recent ids are not known without reading). */
const ORDERS_READ_MAX = 100;

const orderSchema = z.object({
  id: z.string(),
  cartId: z.string(),
  lines: z.array(
    z.object({ productId: z.string(), name: z.string(), quantity: z.number(), priceCents: z.number() }),
  ),
  totalCents: z.number(),
  createdAt: z.string(),
  consumed: z.array(z.string()),
});

const isOrder = (value: unknown): value is Order => orderSchema.safeParse(value).success;

/** Two siblings of one order are the same order placed twice at once: keep the earlier, always. */
export const resolveOrder: Resolver<Order> = (siblings) =>
  siblings
    .filter(isOrder)
    .sort(
      (a, b) => a.createdAt.localeCompare(b.createdAt) || JSON.stringify(a).localeCompare(JSON.stringify(b)),
    )[0] ?? siblings[0]!;

const resolveIds = resolvers.union<string[]>();

export function orderIdFor(cartId: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${cartId}\n${idempotencyKey}`).digest('hex').slice(0, 16);
}

/** An updater that tombstones exactly these cart lines (when they are still there). */
function consume(tags: readonly string[]): (current: Cart | undefined) => Cart | undefined {
  return (current) => {
    if (!cart.is(current)) return undefined;
    const gone = new Set(tags.filter((t) => Object.hasOwn(current.lines, t)));
    if (gone.size === 0) return current;
    const at = Date.now();
    const lines = Object.fromEntries(Object.entries(current.lines).filter(([tag]) => !gone.has(tag)));
    const removed = { ...current.removed, ...Object.fromEntries([...gone].map((t) => [t, at])) };
    return cart.merge([{ ...current, lines, removed }]);
  };
}

export interface OrderServiceDeps {
  readonly access: StoreAccess;
  readonly catalog: Catalog;
  readonly carts: CartService;
  readonly locks: KeyLock;
  readonly story: StoryBook;
}

export class OrderService {
  constructor(private readonly deps: OrderServiceDeps) {}

  async checkout(cartId: string, idempotencyKey: string, asker: Asker): Promise<CheckoutResult> {
    const orderId = orderIdFor(cartId, idempotencyKey);
    const { access, carts, locks, story } = this.deps;
    return locks.run(cartKey(cartId), async () => {
      const served = await access.run(asker.node, async (session) => {
        const stored = merge(await session.get<Order>(orderKey(orderId)), resolveOrder);
        const order = isOrder(stored) ? stored : await this.place(session, cartId, orderId);
        const outcome = await session.update(cartKey(cartId), resolveCart, consume(order.consumed));
        await session.update(ordersKey(cartId), resolveIds, (ids) =>
          ids?.includes(order.id) === true ? ids : [...(ids ?? []), order.id].sort(),
        );
        return { order, replayed: isOrder(stored), outcome, now: await session.get<Cart>(cartKey(cartId)) };
      });
      const { order, replayed, outcome, now } = served.value;
      if (!replayed) {
        story.checkedOut(cartId, asker.tab, {
          orderId: order.id,
          node: served.servedBy.nodeId,
          items: order.lines.reduce((n, l) => n + l.quantity, 0),
          totalCents: order.totalCents,
        });
      }
      carts.remember(cartId, { kind: 'checkout' }, outcome, served.servedBy, asker.tab);
      const view = carts.render(cartId, now, served.servedBy, asker.tab);
      return { order, replayed, cart: withStored(view, outcome, served.servedBy.nodeId) };
    });
  }

  /** Writes the order for what the cart holds now; refuses an empty cart. */
  private async place(session: NodeSession, cartId: string, orderId: string): Promise<Order> {
    const { value } = await this.deps.carts.read(session, cartId);
    const items = cart.items(value);
    if (value === undefined || items.length === 0) {
      throw new StoreError('CART_EMPTY', 'The cart is empty: add something before checking out.');
    }
    const lines: OrderLine[] = items.map(({ item, quantity }) => {
      const product = this.deps.catalog.get(item);
      return { productId: item, name: product?.name ?? item, quantity, priceCents: product?.priceCents ?? 0 };
    });
    const order: Order = {
      id: orderId,
      cartId,
      lines,
      totalCents: lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0),
      createdAt: new Date().toISOString(),
      consumed: Object.keys(value.lines).sort(),
    };
    const written = await session.update<Order>(orderKey(orderId), resolveOrder, (current) =>
      isOrder(current) ? current : order,
    );
    return isOrder(written.after) ? written.after : order;
  }

  async list(cartId: string, asked: string): Promise<Order[]> {
    const served = await this.deps.access.run(asked, async (session) => {
      const ids = merge(await session.get<string[]>(ordersKey(cartId)), resolveIds) ?? [];
      const recent = (Array.isArray(ids) ? ids : [])
        .filter((id) => typeof id === 'string')
        .slice(0, ORDERS_READ_MAX);
      const orders = await Promise.all(
        recent.map(async (id) => merge(await session.get<Order>(orderKey(id)), resolveOrder)),
      );
      return orders.filter(isOrder);
    });
    return served.value.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, ORDERS_SHOWN_MAX);
  }
}
