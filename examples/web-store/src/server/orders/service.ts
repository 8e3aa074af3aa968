/**
 * Checkout, exactly once and never oversold. The order's id is derived from the cart and the
 * idempotency key the page sends with every press of the button (and every retry). The order and
 * the stock it takes are written by one transaction on strong keys (checkout.ts): `orders/<id>`
 * with ifAbsent, and every product's `stock/<id>` conditioned on the version read, all or nothing.
 * Only after that commit are the ordered lines removed from the cart (a plain key, with the cart
 * read's context) and the order's id added to the cart's list; a retry after a failure in between
 * finds the order and finishes the removal. Lines added concurrently (another tab) are not in the
 * order and stay in the cart. A refused checkout (SOLD_OUT) leaves the cart as it was.
 */
import { type Cart, cart } from '@tessera/client';
import type { CheckoutResult, Order, OrderLine } from '../../shared/api.js';
import { type Asker, type CartService, cartKey, resolveCart } from '../cart/service.js';
import { withStored } from '../cart/stored.js';
import type { Catalog } from '../catalog/catalog.js';
import { merge, type StoreAccess } from '../cluster/access.js';
import { STRONG_CALL, type StrongAccess } from '../cluster/strong-access.js';
import { StoreError } from '../http/errors.js';
import type { StoryBook } from '../story/book.js';
import type { KeyLock } from '../util/key-lock.js';
import { findOrder, placeOrder } from './checkout.js';
import { cartOrdersKey, isOrder, orderIdFor, orderKey, resolveIds } from './order.js';

const ORDERS_SHOWN_MAX = 20;
/** Orders of one cart looked at, at most: one snapshot read (transactGet takes up to 100 keys). */
const ORDERS_READ_MAX = 100;

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
  readonly strong: StrongAccess;
  readonly catalog: Catalog;
  readonly carts: CartService;
  readonly locks: KeyLock;
  readonly story: StoryBook;
}

export class OrderService {
  constructor(private readonly deps: OrderServiceDeps) {}

  async checkout(cartId: string, idempotencyKey: string, asker: Asker): Promise<CheckoutResult> {
    const orderId = orderIdFor(cartId, idempotencyKey);
    const { access, strong, carts, locks, story } = this.deps;
    return locks.run(cartKey(cartId), async () => {
      // The cart as the tab's node has it: its lines make the order.
      const read = await access.run(asker.node, (session) => carts.read(session, cartId));
      const draft = this.draft(cartId, orderId, read.value.value);
      // The transaction (or, for an empty cart, a look for the order an earlier press placed). A
      // tab pinned to a node cut off from a majority gets STRONG_UNAVAILABLE and keeps its cart.
      const placed = await strong.run(
        asker.node,
        async (client) => {
          if (draft !== undefined) return placeOrder(client, draft, { call: STRONG_CALL });
          const order = await findOrder(client, orderId, STRONG_CALL);
          if (order === undefined) {
            throw new StoreError('CART_EMPTY', 'The cart is empty: add something before checking out.');
          }
          return { kind: 'existing' as const, order };
        },
        { stay: true, prefer: read.servedBy.degraded ? undefined : read.servedBy.nodeId },
      );
      const { order } = placed.value;
      const replayed = placed.value.kind === 'existing';

      // Committed: now take the ordered lines out of the cart and list the order under it.
      const served = await access.run(asker.node, async (session) => {
        const outcome = await session.update(cartKey(cartId), resolveCart, consume(order.consumed));
        await session.update(cartOrdersKey(cartId), resolveIds, (ids) =>
          ids?.includes(order.id) === true ? ids : [...(ids ?? []), order.id].sort(),
        );
        return { outcome, now: await session.get<Cart>(cartKey(cartId)) };
      });
      const { outcome, now } = served.value;
      if (!replayed) {
        story.checkedOut(cartId, asker.tab, {
          orderId: order.id,
          node: placed.nodeId,
          items: order.lines.reduce((n, l) => n + l.quantity, 0),
          totalCents: order.totalCents,
        });
      }
      carts.remember(cartId, { kind: 'checkout' }, outcome, served.servedBy, asker.tab);
      const view = carts.render(cartId, now, served.servedBy, asker.tab);
      return { order, replayed, cart: withStored(view, outcome, served.servedBy.nodeId) };
    });
  }

  /** The order for what the cart holds now; undefined for an empty cart. */
  private draft(cartId: string, orderId: string, value: Cart | undefined): Order | undefined {
    const items = cart.items(value);
    if (value === undefined || items.length === 0) return undefined;
    const lines: OrderLine[] = items.map(({ item, quantity }) => {
      const product = this.deps.catalog.get(item);
      return { productId: item, name: product?.name ?? item, quantity, priceCents: product?.priceCents ?? 0 };
    });
    return {
      id: orderId,
      cartId,
      lines,
      totalCents: lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0),
      createdAt: new Date().toISOString(),
      consumed: Object.keys(value.lines).sort(),
    };
  }

  /** The cart's orders, newest first: the ids from its list, the orders from one strong snapshot. */
  async list(cartId: string, asked: string): Promise<Order[]> {
    const served = await this.deps.access.run(asked, async (session) =>
      merge(await session.get<string[]>(cartOrdersKey(cartId)), resolveIds),
    );
    const ids = (Array.isArray(served.value) ? served.value : [])
      .filter((id) => typeof id === 'string')
      .slice(0, ORDERS_READ_MAX);
    if (ids.length === 0) return [];
    const read = await this.deps.strong.run(asked, (client) =>
      client.transactGet(
        ids.map((id) => orderKey(id)),
        STRONG_CALL,
      ),
    );
    const orders = read.value.map((item) => (item.found ? item.value : undefined)).filter(isOrder);
    return orders.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, ORDERS_SHOWN_MAX);
  }
}
