/**
 * The store's page: one state store (state/), the actions that change it, the polls that keep it
 * current, and the views drawn from it.
 */
import { createActions } from './actions.js';
import { Api } from './api.js';
import { Inflight } from './inflight.js';
import { startPolling } from './poll.js';
import { createRenderer } from './render.js';
import { initialState } from './state/app-state.js';
import { Store } from './state/store.js';
import { cartIdFromPath, initialNode, tabId } from './tab.js';

async function boot(): Promise<void> {
  const cartId = cartIdFromPath();
  if (cartId === '') {
    location.href = '/';
    return;
  }
  // The tab id first: initialNode drops ?node= from the address, which tabId looks at.
  const id = tabId();
  const store = new Store(initialState(cartId, { id, node: initialNode() }));
  const api = new Api(cartId, () => store.get().tab);
  const inflight = new Inflight();
  const actions = createActions(store, api, inflight);
  store.subscribe(createRenderer(actions));
  document.body.dataset.cart = cartId;
  const { products } = await api.catalog();
  store.update((s) => ({ ...s, products }));
  startPolling(store, api, inflight, actions.pick);
}

void boot();
