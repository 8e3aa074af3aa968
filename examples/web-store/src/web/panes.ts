/**
 * The two halves of the split-screen page, each a cart through its own node. The left half is this
 * tab (its node is the tab's, its cart the tab's cart); the right half is a second tab on the same
 * page, with its own tab id and node, so the store's story counts two tabs on two nodes.
 */
import type { CartView } from '../shared/api.js';
import { Api } from './api.js';
import { Inflight } from './inflight.js';
import type { AppState } from './state/app-state.js';
import { otherNode } from './state/select.js';
import type { Store } from './state/store.js';
import { withCart, withSecond, withSecondNode } from './state/updates.js';
import type { PaneOps } from './story/script.js';

export interface Panes {
  readonly left: PaneOps;
  readonly right: PaneOps;
  readonly secondApi: Api;
  readonly secondInflight: Inflight;
}

function ops(
  api: Api,
  inflight: Inflight,
  node: (s: AppState) => string | undefined,
  apply: (s: AppState, cart: CartView) => AppState,
  store: Store<AppState>,
  afterWrite: () => Promise<void>,
): PaneOps {
  const run = async (call: () => Promise<CartView>): Promise<void> => {
    const cart = await inflight.run(call);
    store.update((s) => apply(s, cart));
    void afterWrite().catch(() => {});
  };
  return {
    node,
    add: (id) => run(() => api.add(id)),
    set: (id, q) => run(() => api.setQuantity(id, q)),
    remove: (id) => run(() => api.remove(id)),
  };
}

/** `afterWrite`: what to read again after a half changed the cart (every node's copy). */
export function createPanes(
  store: Store<AppState>,
  api: Api,
  inflight: Inflight,
  afterWrite: () => Promise<void>,
): Panes {
  const secondApi = new Api(store.get().cartId, () => {
    const { second } = store.get();
    return { id: second.id, node: second.node ?? 'auto' };
  });
  const secondInflight = new Inflight();
  const left = ops(
    api,
    inflight,
    (s) => (s.tab.node === 'auto' ? undefined : s.tab.node),
    (s, cart) => withCart(s, cart, true),
    store,
    afterWrite,
  );
  const right = ops(secondApi, secondInflight, (s) => s.second.node, withSecond, store, afterWrite);
  return { left, right, secondApi, secondInflight };
}

/**
 * In split-screen, once the nodes are known: the left half (this tab) is pinned to a node (the
 * first, if it was on auto), and the right half talks to another one.
 */
export function placePanes(state: AppState, pick: (node: string) => void, store: Store<AppState>): void {
  const view = state.cluster?.view;
  if (state.ui.mode !== 'split' || view === undefined) return;
  const first = view.nodes[0]?.id;
  if (state.tab.node === 'auto' && first !== undefined) {
    pick(first);
    return;
  }
  const right = state.second.node;
  if (right === undefined || right === state.tab.node) {
    const other = otherNode(view, state.tab.node);
    if (other !== undefined) store.update((s) => withSecondNode(s, other));
  }
}
