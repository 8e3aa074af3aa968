/** How an answer of the store changes the state. Pure. */
import type { CartView, ClusterView, ReplicasView, StockView } from '../../shared/api.js';
import type { AppState } from './app-state.js';
import { knownAfter } from './checkout.js';
import { pruned } from './removals.js';
import { savedAfter, savedSeen } from './saved.js';

/** The state after a cart answer. `acted`: this tab changed the cart, so past orders are not news. */
export function withCart(state: AppState, cart: CartView, acted: boolean): AppState {
  return {
    ...state,
    cart,
    saved: savedAfter(state.saved, cart),
    knownOrders: knownAfter(state.knownOrders, cart.story, acted || state.knownOrders === undefined),
    removed: pruned(state.removed, Date.now()),
  };
}

export function withCluster(state: AppState, view: ClusterView): AppState {
  return { ...state, cluster: { view, stale: false } };
}

/** A poll of the cluster failed: keep the last picture, marked stale. */
export function clusterStale(state: AppState): AppState {
  return state.cluster === undefined ? state : { ...state, cluster: { ...state.cluster, stale: true } };
}

/** The second pane's cart answer. */
export function withSecond(state: AppState, cart: CartView): AppState {
  return { ...state, second: { ...state.second, cart, saved: savedAfter(state.second.saved, cart) } };
}

/** The second pane talks to `node` now; its cart is read again from there. */
export function withSecondNode(state: AppState, node: string): AppState {
  return state.second.node === node
    ? state
    : { ...state, second: { ...state.second, node, cart: undefined } };
}

export function withReplicas(state: AppState, replicas: ReplicasView): AppState {
  const known = state.replicas?.observedAt;
  // An answer to an older poll does not replace a newer one.
  if (known !== undefined && known > replicas.observedAt) return state;
  const second = { ...state.second, saved: savedSeen(state.second.saved, replicas) };
  return { ...state, replicas, saved: savedSeen(state.saved, replicas), second };
}

export function withStock(state: AppState, view: StockView): AppState {
  // An answer to an older read does not replace a newer one.
  if (state.stock !== undefined && state.stock.observedAt > view.observedAt) return state;
  const left = Object.fromEntries(view.stock.map((s) => [s.productId, s.left]));
  return { ...state, stock: { left, observedAt: view.observedAt } };
}
