/** How an answer of the store changes the state. Pure. */
import type { CartView, ClusterView } from '../../shared/api.js';
import type { AppState } from './app-state.js';
import { knownAfter } from './checkout.js';
import { pruned } from './removals.js';

/** The state after a cart answer. `acted`: this tab changed the cart, so past orders are not news. */
export function withCart(state: AppState, cart: CartView, acted: boolean): AppState {
  return {
    ...state,
    cart,
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
