/**
 * Polling, so that what another tab or a healed split changed shows up by itself: the cart (and
 * in split-screen the second half's), every node's copy, the cluster, the orders and the stock. A
 * poll is skipped while this tab has an action in flight (its answer could be older than the
 * action's). A failed cluster poll marks the picture stale.
 */
import type { Inflight } from './inflight.js';
import type { Readers } from './readers.js';

const CART_POLL_MS = 1_200;
const CLUSTER_POLL_MS = 1_500;
const REPLICAS_POLL_MS = 1_500;
const ORDERS_POLL_MS = 6_000;
const STOCK_POLL_MS = 3_000;

function every(ms: number, inflight: Inflight, fn: () => Promise<void>): void {
  const tick = async (): Promise<void> => {
    if (!inflight.busy) await fn().catch(() => {});
    setTimeout(() => void tick(), ms);
  };
  void tick();
}

export function startPolling(read: Readers, inflight: Inflight, secondInflight: Inflight): void {
  every(CART_POLL_MS, inflight, read.cart);
  every(CART_POLL_MS, secondInflight, read.second);
  every(REPLICAS_POLL_MS, inflight, read.replicas);
  every(CLUSTER_POLL_MS, inflight, read.cluster);
  every(ORDERS_POLL_MS, inflight, read.orders);
  every(STOCK_POLL_MS, inflight, read.stock);
}
