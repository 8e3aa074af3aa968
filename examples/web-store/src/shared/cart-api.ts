/** Carts, checkout and orders as the API answers them. */
import type { WriteReceipt } from '@tessera/client';
import type { PastReconciliation, Reconciliation } from './reconcile-api.js';
import type { CartStory } from './story-api.js';

/** Which node a request went through, and how. */
export interface ServedBy {
  /** The node the tab asked for: a node id, or "auto" (the first node that answers). */
  readonly asked: string;
  /** The node that answered. */
  readonly nodeId: string;
  /** The asked node was unreachable, so another one answered. */
  readonly fallback: boolean;
  /** The node could not reach a quorum of replicas: it read and wrote its own copy alone. */
  readonly degraded: boolean;
  /** One sentence for people. */
  readonly note: string;
}

/**
 * How a write was stored, as the node that coordinated it knew when it answered (the client's
 * `WriteReceipt`): acks that came later are missing, so it can under-count, never over-count.
 */
export interface WriteStored extends WriteReceipt {
  /** The node that coordinated the write. */
  readonly via: string;
  /** When the store got the answer (ISO time, the store's clock: compare with a replica's readAt). */
  readonly at: string;
}

export interface CartLineView {
  readonly productId: string;
  readonly name: string;
  readonly image: string;
  readonly quantity: number;
  readonly priceCents: number;
  readonly subtotalCents: number;
}

export interface CartView {
  readonly cartId: string;
  readonly items: readonly CartLineView[];
  readonly count: number;
  readonly totalCents: number;
  /** How many versions (siblings) the read returned. */
  readonly versions: number;
  /** Names the cart's content (its live lines): checkout keys are made per revision. */
  readonly revision: string;
  /** Present while the cart has more than one version. */
  readonly reconciliation?: Reconciliation;
  /** The last reconciliation a write resolved (kept by this store process). */
  readonly lastReconciliation?: PastReconciliation;
  /** Who has this cart open, who wrote to it and when, and how far the guide's story got. */
  readonly story: CartStory;
  readonly servedBy: ServedBy;
  /**
   * Only in the answer to a change that wrote the cart: how that write was stored; null when the
   * node did not say (an older node, or a write retried without a quorum). Absent otherwise.
   */
  readonly stored?: WriteStored | null;
}

export interface OrderLine {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
  readonly priceCents: number;
}

export interface Order {
  readonly id: string;
  readonly cartId: string;
  readonly lines: readonly OrderLine[];
  readonly totalCents: number;
  readonly createdAt: string;
  /** The cart lines (tags) this order took out of the cart. */
  readonly consumed: readonly string[];
}

export interface CheckoutResult {
  readonly order: Order;
  /** true when this idempotency key had already placed the order: nothing new was ordered. */
  readonly replayed: boolean;
  readonly cart: CartView;
}

export interface OrdersView {
  readonly orders: readonly Order[];
}
