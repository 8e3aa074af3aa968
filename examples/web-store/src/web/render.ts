/**
 * Draws the page from the state: each section is rebuilt only when what it shows changed, which
 * keeps hover, focus and open details in the others.
 */
import type { Actions } from './actions.js';
import { mount } from './dom.js';
import type { AppState } from './state/app-state.js';
import { ordersFromElsewhere } from './state/checkout.js';
import { rows } from './state/removals.js';
import { summarize } from './state/replicas.js';
import { savedText } from './state/saved.js';
import { otherNode, showPastMerge, thisNode } from './state/select.js';
import { shareUrl } from './tab.js';
import { cartView } from './views/cart.js';
import { catalogView } from './views/catalog.js';
import { clusterView, showAsOf, timeless } from './views/cluster/panel.js';
import { guideView } from './views/guide.js';
import { headerCart } from './views/header.js';
import { liveReconciliation, pastReconciliation } from './views/reconcile/panel.js';
import { replicasView } from './views/replicas.js';
import { splitScreen } from './views/split-screen.js';
import { storyBar } from './views/story-bar.js';
import { tabNodeView } from './views/tab-node.js';

export function createRenderer(on: Actions): (state: AppState) => void {
  const rendered = new Map<string, string>();
  const section = (id: string, inputs: unknown, build: () => HTMLElement | null): void => {
    const key = JSON.stringify(inputs);
    if (rendered.get(id) === key) return;
    rendered.set(id, key);
    mount(document.getElementById(id), build());
  };

  return (state) => {
    const { cart, cartId } = state;
    const view = state.cluster?.view;
    const nodeIds = view?.nodes.map((n) => n.id) ?? [];
    const here = thisNode(state);
    const other = otherNode(view, here);
    const pinned = state.tab.node;

    section('tab-node', [nodeIds, pinned, cart?.servedBy], () =>
      tabNodeView(nodeIds, pinned, cart?.servedBy, on.pick),
    );
    section('header-cart', [cart?.count, cart?.versions], () => headerCart(cart, on));
    section('cluster', [timeless(view), state.cluster?.stale, here], () =>
      clusterView(state.cluster, here, on),
    );
    showAsOf(document.getElementById('cluster'), state.cluster);
    const guide = {
      story: cart?.story,
      cluster: view,
      pinned,
      here,
      second: other === undefined ? undefined : { id: other, url: shareUrl(cartId, other) },
      versions: cart?.versions ?? 0,
      open: state.ui.guideOpen,
    };
    section(
      'guide',
      [
        guide.story?.steps,
        view?.split,
        view?.nodes.map((n) => n.state),
        pinned,
        here,
        other,
        guide.versions,
        guide.open,
      ],
      () => guideView(guide, { ...on, toggle: on.toggleGuide }),
    );
    const past = showPastMerge(state);
    section(
      'reconciliation',
      [cart?.reconciliation, past && cart?.lastReconciliation, state.ui.pastOpen],
      () => {
        if (cart?.reconciliation !== undefined) return liveReconciliation(cart.reconciliation, on.save);
        if (past && cart?.lastReconciliation !== undefined)
          return pastReconciliation(cart.lastReconciliation, state.ui.pastOpen, on.togglePast);
        return null;
      },
    );
    const stock = state.stock?.left;
    section('catalog', [state.products, cart?.items, stock], () =>
      catalogView(state.products, cart, stock, on.add),
    );
    document.body.dataset.mode = state.ui.mode;
    section('story', [state.ui.mode, state.narration], () => storyBar(state.ui.mode, state.narration, on));
    const replicas = summarize(state.replicas, view);
    section('replicas', replicas, () => replicasView(replicas));
    const split = state.ui.mode === 'split';
    const apart = view?.split != null;
    const saved = savedText(state.saved, apart);
    const left = {
      side: 'left' as const,
      node: here,
      choices: nodeIds.filter((id) => id !== state.second.node),
      cart,
      saved,
    };
    const right = {
      side: 'right' as const,
      node: state.second.node,
      choices: nodeIds.filter((id) => id !== here),
      cart: state.second.cart,
      saved: savedText(state.second.saved, apart),
    };
    const paneOn = { left: { ...on, pick: on.pick }, right: on.second };
    section('split-screen', split ? [left, right, state.products] : null, () =>
      split ? splitScreen(left, right, state.products, paneOn) : null,
    );
    const panel = {
      cart,
      rows: cart === undefined ? [] : rows(cart, state.removed, Date.now()),
      orders: state.orders,
      note: state.checkout,
      refusal: state.refusal,
      elsewhere: ordersFromElsewhere(cart?.story, state.knownOrders),
      shareUrl: shareUrl(cartId),
      openIn: nodeIds.filter((id) => id !== here).map((id) => ({ id, url: shareUrl(cartId, id) })),
      busy: state.checkingOut > 0,
      saved,
    };
    section('cart', panel, () => cartView(panel, on));
    document.body.dataset.versions = String(cart?.versions ?? 0);
    document.body.dataset.count = cart === undefined ? '' : String(cart.count);
  };
}
