/**
 * Polling, so that what another tab or a healed split changed shows up by itself: the cart, the
 * cluster and the orders. A poll is skipped while this tab has an action in flight, and its answer
 * dropped if an action finished meanwhile. A failed cluster poll marks the picture stale.
 */
import { type Api, ApiError } from './api.js';
import type { Inflight } from './inflight.js';
import type { AppState } from './state/app-state.js';
import type { Store } from './state/store.js';
import { clusterStale, withCart, withCluster } from './state/updates.js';

const CART_POLL_MS = 1_200;
const CLUSTER_POLL_MS = 1_500;
const ORDERS_POLL_MS = 6_000;

function every(ms: number, inflight: Inflight, fn: () => Promise<void>): void {
  const tick = async (): Promise<void> => {
    if (!inflight.busy) await fn().catch(() => {});
    setTimeout(() => void tick(), ms);
  };
  void tick();
}

export function startPolling(
  store: Store<AppState>,
  api: Api,
  inflight: Inflight,
  pick: (node: string) => void,
): void {
  every(CART_POLL_MS, inflight, async () => {
    const stamp = inflight.stamp();
    try {
      const cart = await api.getCart();
      if (inflight.fresh(stamp)) store.update((s) => withCart(s, cart, false));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'UNKNOWN_NODE') pick('auto');
    }
  });
  every(CLUSTER_POLL_MS, inflight, async () => {
    try {
      const view = await api.cluster();
      store.update((s) => withCluster(s, view));
    } catch {
      store.update(clusterStale);
    }
  });
  every(ORDERS_POLL_MS, inflight, async () => {
    const { orders } = await api.orders();
    store.update((s) => ({ ...s, orders }));
  });
}
