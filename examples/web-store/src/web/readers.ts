/**
 * Reading what the page shows from the store, one call each: the cart, the second half's cart,
 * every node's copy, the cluster, the orders, the stock. The polls call them on a timer; the story
 * player calls them when it waits for something. A cart answer that started before an action
 * finished is dropped.
 */
import { type Api, ApiError } from './api.js';
import type { Inflight } from './inflight.js';
import type { Panes } from './panes.js';
import type { AppState } from './state/app-state.js';
import type { Store } from './state/store.js';
import { clusterStale, withCart, withCluster, withReplicas, withSecond, withStock } from './state/updates.js';

export interface Readers {
  readonly cart: () => Promise<void>;
  readonly second: () => Promise<void>;
  readonly replicas: () => Promise<void>;
  readonly cluster: () => Promise<void>;
  readonly orders: () => Promise<void>;
  readonly stock: () => Promise<void>;
  /** The carts, the replicas and the cluster, at once. */
  readonly all: () => Promise<void>;
}

export function createReaders(
  store: Store<AppState>,
  api: Api,
  inflight: Inflight,
  panes: Panes,
  pick: (node: string) => void,
): Readers {
  const cart = async (): Promise<void> => {
    const stamp = inflight.stamp();
    try {
      const view = await api.getCart();
      if (inflight.fresh(stamp)) store.update((s) => withCart(s, view, false));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'UNKNOWN_NODE') pick('auto');
    }
  };
  const second = async (): Promise<void> => {
    const { ui, second: pane } = store.get();
    if (ui.mode !== 'split' || pane.node === undefined) return;
    const stamp = panes.secondInflight.stamp();
    const view = await panes.secondApi.getCart();
    // Dropped when the half was pointed at another node meanwhile.
    if (panes.secondInflight.fresh(stamp) && store.get().second.node === pane.node)
      store.update((s) => withSecond(s, view));
  };
  const replicas = async (): Promise<void> => {
    const view = await api.replicas();
    store.update((s) => withReplicas(s, view));
  };
  const cluster = async (): Promise<void> => {
    try {
      const view = await api.cluster();
      store.update((s) => withCluster(s, view));
    } catch {
      store.update(clusterStale);
    }
  };
  const orders = async (): Promise<void> => {
    const { orders: list } = await api.orders();
    store.update((s) => ({ ...s, orders: list }));
  };
  const stock = async (): Promise<void> => {
    const view = await api.stock();
    store.update((s) => withStock(s, view));
  };
  const all = async (): Promise<void> => {
    await Promise.all([cart(), second().catch(() => {}), replicas().catch(() => {}), cluster()]);
  };
  return { cart, second, replicas, cluster, orders, stock, all };
}
