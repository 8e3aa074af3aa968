/**
 * Checkout as ONE transaction on strong keys (docs/web-store.md, "Checkout: one transaction"):
 *
 * 1. read, in one consistent snapshot (`transactGet`), the order's key and the stock of every
 *    product in the cart; an order already there is this checkout's, placed before (a retry);
 * 2. refuse (SOLD_OUT) when a product has fewer left than the cart holds, naming it;
 * 3. `transact`: for every product, a put of `stock/<product>` with the decremented count, on
 *    the condition that its version is still the one read (ifVersion); and a put of
 *    `orders/<orderId>` on the condition that it has no value (ifAbsent). All apply, or none.
 *
 * When the transaction is canceled, its cancellation reasons say why: ConditionalCheckFailed on a
 * stock key (someone bought it in between) or on the order (this order was placed meanwhile), or
 * TransactionConflict (another transaction held a key). Each starts over from a fresh snapshot, a
 * few times; that snapshot then shows which item has fewer left than wanted, or the order placed.
 *
 * The transaction's clientRequestToken is derived from the order's id, the actions and the
 * attempt, so a transaction sent again (by the client after a dropped connection, or by the store
 * through another node when the first did not answer) answers its first outcome instead of
 * applying twice. A request repeated later (a retry of the page) drafts its order anew and reads
 * again: the order placed is in its snapshot, and the order's ifAbsent makes a second order under
 * the same id impossible whatever happens.
 */
import { createHash } from 'node:crypto';
import {
  cancellationReasons,
  canonical,
  type TransactAction,
  type TransactGetItem,
  type TransactOptions,
  type TransactResult,
} from '@tessera/client';
import type { Order, Shortage, StockLevel } from '../../shared/api.js';
import { StoreError } from '../http/errors.js';
import { type StockRecord, stockKey, stockRead } from '../stock/stock.js';
import { isOrder, orderKey } from './order.js';

/** The two calls checkout makes: a TesseraClient has them (and so does the tests' fake). */
export interface StrongOps {
  transactGet(keys: readonly string[], options?: { readonly retries?: number }): Promise<TransactGetItem[]>;
  transact(actions: readonly TransactAction[], options?: TransactOptions): Promise<TransactResult>;
}

/** Snapshots and transactions per checkout, at most: the first and a few after cancellations. */
export const CHECKOUT_ATTEMPTS = 5;
/** A sale this recent makes a sold-out item "just bought". */
export const JUST_BOUGHT_MS = 2 * 60_000;

export type Placed =
  /** This call's transaction placed the order; `stock` is what is left of each product of it. */
  | { readonly kind: 'placed'; readonly order: Order; readonly stock: readonly StockLevel[] }
  /** The order was already there: placed by an earlier request with the same key. */
  | { readonly kind: 'existing'; readonly order: Order };

export interface PlaceOptions {
  readonly attempts?: number;
  /** Waits before another attempt after a TransactionConflict (default: 10-60 ms, growing). */
  readonly backoff?: (attempt: number) => Promise<void>;
  readonly now?: () => number;
  /** Options for every call (the store's: one retry per node). */
  readonly call?: { readonly retries?: number };
}

/** How many of each product an order takes (an order's lines name each product once). */
function wanted(order: Order): Map<string, { name: string; quantity: number }> {
  const need = new Map<string, { name: string; quantity: number }>();
  for (const l of order.lines) {
    const before = need.get(l.productId);
    need.set(l.productId, { name: l.name, quantity: (before?.quantity ?? 0) + l.quantity });
  }
  return need;
}

/**
 * The clientRequestToken of a transaction: the same for the same order, actions and attempt. A
 * node answers a token it has seen with that transaction's first outcome, so an attempt after a
 * TransactionConflict, whose actions may be the same as before, needs a token of its own.
 */
export function tokenFor(orderId: string, actions: readonly TransactAction[], attempt: number): string {
  const digest = createHash('sha256')
    .update(`${attempt}\n${canonical(actions)}`)
    .digest('base64url')
    .slice(0, 32);
  return `co-${orderId.slice(0, 24)}-${digest}`;
}

/** The sentence a refused checkout shows: which items ran out, and that nothing was ordered. */
export function shortageMessage(shortages: readonly Shortage[]): string {
  const one = (s: Shortage): string => {
    if (s.left === 0)
      return s.justBought ? `the last ${s.name} was just bought — 0 left` : `${s.name} is sold out — 0 left`;
    const only = `only ${s.left} ${s.name} left`;
    return `${s.justBought ? `${s.name} was just bought: ${only}` : only}, your cart has ${s.wanted}`;
  };
  return `Sorry, ${shortages.map(one).join('; ')}. Nothing was ordered and your cart is as it was.`;
}

function soldOut(shortages: readonly Shortage[]): StoreError {
  return new StoreError('SOLD_OUT', shortageMessage(shortages), { shortages });
}

const defaultBackoff = (attempt: number): Promise<void> =>
  new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 50));

/**
 * Places `order` (lines, total and consumed cart lines already filled in) in one transaction with
 * the stock it takes; see the top of this file. Throws SOLD_OUT (details.shortages) when the stock
 * cannot cover it, CHECKOUT_CONFLICT when every attempt was canceled by contention, and what the
 * client throws otherwise (then nothing or everything was applied, never a part: a retry with the
 * same order id finds out which).
 */
export async function placeOrder(ops: StrongOps, order: Order, options: PlaceOptions = {}): Promise<Placed> {
  const attempts = options.attempts ?? CHECKOUT_ATTEMPTS;
  const backoff = options.backoff ?? defaultBackoff;
  const now = options.now ?? Date.now;
  const call = options.call ?? {};
  const need = wanted(order);
  const products = [...need.keys()].sort();
  const keys = [orderKey(order.id), ...products.map(stockKey)];
  /** Products whose stock changed under one of this checkout's transactions. */
  const raced = new Set<string>();

  for (let attempt = 1; attempt <= attempts; attempt++) {
    const [placed, ...items] = await ops.transactGet(keys, call);
    if (placed?.found === true) {
      if (!isOrder(placed.value))
        throw new Error(`${orderKey(order.id)} holds something that is not an order.`);
      return { kind: 'existing', order: placed.value };
    }
    const reads = products.map((id, i) => ({ id, read: stockRead(items[i]!) }));
    const shortages: Shortage[] = reads
      .filter(({ id, read }) => read.record.left < need.get(id)!.quantity)
      .map(({ id, read }) => {
        const sold = read.record.lastSoldAt === null ? Number.NaN : Date.parse(read.record.lastSoldAt);
        return {
          productId: id,
          name: need.get(id)!.name,
          wanted: need.get(id)!.quantity,
          left: read.record.left,
          justBought: raced.has(id) || now() - sold < JUST_BOUGHT_MS,
        };
      });
    if (shortages.length > 0) throw soldOut(shortages);

    // The sale's time is the order's: a transaction sent again for this order has the same actions.
    const soldAt = order.createdAt;
    const after = reads.map(({ id, read }) => ({
      id,
      left: read.record.left - need.get(id)!.quantity,
      read,
    }));
    const actions: TransactAction[] = [
      { type: 'put', key: orderKey(order.id), value: order, condition: { ifAbsent: true } },
      ...after.map(({ id, left, read }): TransactAction => {
        const value: StockRecord = { left, lastSoldAt: soldAt };
        return { type: 'put', key: stockKey(id), value, condition: { ifVersion: read.version } };
      }),
    ];
    try {
      await ops.transact(actions, { ...call, token: tokenFor(order.id, actions, attempt) });
      return { kind: 'placed', order, stock: after.map(({ id, left }) => ({ productId: id, left })) };
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (reasons === undefined) throw err;
      let conflict = false;
      reasons.forEach((reason, i) => {
        const key = actions[i]?.key;
        if (reason.code === 'ConditionalCheckFailed' && key !== undefined && key.startsWith('stock/'))
          raced.add(key.slice('stock/'.length));
        if (reason.code === 'TransactionConflict' || reason.code === 'Unknown') conflict = true;
      });
      // A failed condition: the next snapshot shows what changed. A conflict: wait a little first.
      if (conflict && attempt < attempts) await backoff(attempt);
    }
  }
  throw new StoreError(
    'CHECKOUT_CONFLICT',
    'Many people are checking out these items right now and every attempt collided with another. ' +
      'Nothing was ordered and your cart is as it was: press Check out again.',
    { attempts },
  );
}

/** The order placed under `orderId`, if there is one (one strong read). */
export async function findOrder(
  ops: Pick<StrongOps, 'transactGet'>,
  orderId: string,
  call: { readonly retries?: number } = {},
): Promise<Order | undefined> {
  const [item] = await ops.transactGet([orderKey(orderId)], call);
  return item?.found === true && isOrder(item.value) ? item.value : undefined;
}
