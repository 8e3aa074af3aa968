/**
 * The store's page: one state store (state/), the actions that change it, the polls that keep it
 * current, and the views drawn from it.
 */
import { createActions } from './actions.js';
import { Api } from './api.js';
import { Inflight } from './inflight.js';
import { createPanes, placePanes } from './panes.js';
import { startPolling } from './poll.js';
import { createReaders, type Readers } from './readers.js';
import { createRenderer } from './render.js';
import { initialState } from './state/app-state.js';
import { Store } from './state/store.js';
import { cartIdFromPath, initialMode, initialNode, tabId, takePlay } from './tab.js';

async function boot(): Promise<void> {
  const cartId = cartIdFromPath();
  if (cartId === '') {
    location.href = '/';
    return;
  }
  // The tab id first: initialNode drops ?node= from the address, which tabId looks at.
  const id = tabId();
  const store = new Store(initialState(cartId, { id, node: initialNode() }, initialMode()));
  const api = new Api(cartId, () => store.get().tab);
  const inflight = new Inflight();
  let readers: Readers | undefined;
  const replicas = (): Promise<void> => readers?.replicas() ?? Promise.resolve();
  const panes = createPanes(store, api, inflight, replicas);
  const actions = createActions(
    store,
    api,
    inflight,
    panes,
    () => readers?.all() ?? Promise.resolve(),
    replicas,
  );
  readers = createReaders(store, api, inflight, panes, actions.pick);
  store.subscribe(createRenderer(actions));
  store.subscribe((state) => placePanes(state, actions.pick, store));
  document.body.dataset.cart = cartId;
  const play = takePlay();
  const { products } = await api.catalog();
  store.update((s) => ({ ...s, products }));
  startPolling(readers, inflight, panes.secondInflight);
  if (play) actions.playHere();
}

void boot();
