/** Calls to the store's API, each tagged with this tab's id and the node it talks to. */
import type {
  CartView,
  CheckoutResult,
  ClusterView,
  ErrorBody,
  OrdersView,
  Product,
  ReplicasView,
  StockView,
} from '../shared/api.js';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    /** The error's `details`, when the store sent some (SOLD_OUT: which items ran out). */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export class Api {
  /** `tab`: this tab's id and the node it talks to, read at every call. */
  constructor(
    private readonly cartId: string,
    private readonly tab: () => { readonly id: string; readonly node: string },
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { id, node } = this.tab();
    const headers: Record<string, string> = { 'x-tessera-node': node, 'x-tessera-tab': id };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch {
      throw new ApiError('NETWORK', 'The store did not answer. Is it still running?', 0);
    }
    const data = (await res.json().catch(() => ({}))) as T | ErrorBody;
    if (!res.ok) {
      const error = (data as Partial<ErrorBody>).error;
      throw new ApiError(
        error?.code ?? 'HTTP',
        error?.message ?? `The store answered ${res.status}.`,
        res.status,
        error?.details,
      );
    }
    return data as T;
  }

  private get cart(): string {
    return `/api/carts/${encodeURIComponent(this.cartId)}`;
  }

  catalog(): Promise<{ products: Product[] }> {
    return this.call('GET', '/api/catalog');
  }

  /** Every product's stock, from one snapshot of the strong keys. */
  stock(): Promise<StockView> {
    return this.call('GET', '/api/stock');
  }

  getCart(): Promise<CartView> {
    return this.call('GET', this.cart);
  }

  add(productId: string, quantity = 1): Promise<CartView> {
    return this.call('POST', `${this.cart}/items`, { productId, quantity });
  }

  setQuantity(productId: string, quantity: number): Promise<CartView> {
    return this.call('PUT', `${this.cart}/items/${encodeURIComponent(productId)}`, { quantity });
  }

  remove(productId: string): Promise<CartView> {
    return this.call('DELETE', `${this.cart}/items/${encodeURIComponent(productId)}`);
  }

  save(): Promise<CartView> {
    return this.call('POST', `${this.cart}/save`, {});
  }

  checkout(idempotencyKey: string): Promise<CheckoutResult> {
    return this.call('POST', `${this.cart}/checkout`, { idempotencyKey });
  }

  orders(): Promise<OrdersView> {
    return this.call('GET', `${this.cart}/orders`);
  }

  /** Every node's own copy of the cart (no quorum). */
  replicas(): Promise<ReplicasView> {
    return this.call('GET', `${this.cart}/replicas`);
  }

  cluster(): Promise<ClusterView> {
    return this.call('GET', '/api/cluster');
  }

  nodeAction(nodeId: string, action: 'stop' | 'start'): Promise<ClusterView> {
    return this.call('POST', `/api/cluster/nodes/${encodeURIComponent(nodeId)}/${action}`, {});
  }

  split(isolate: string): Promise<ClusterView> {
    return this.call('POST', '/api/cluster/split', { isolate });
  }

  heal(): Promise<ClusterView> {
    return this.call('POST', '/api/cluster/heal', {});
  }
}
