/**
 * The store's page: state, actions and polling. The cart and the cluster are polled, so what
 * another tab or a healed split changed shows up by itself; a poll that raced with an action of
 * this tab is dropped so it cannot show the cart from before the action.
 */
import type { CartView, CheckoutResult, ClusterView, Order, Product } from '../shared/api.js';
import { Api, ApiError } from './api.js';
import { h, mount } from './dom.js';
import { cartIdFromPath, initialNode, saveNode, shareUrl } from './tab.js';
import { cartView } from './views/cart.js';
import { catalogView } from './views/catalog.js';
import { clusterView } from './views/cluster.js';
import { guideView } from './views/guide.js';
import { liveReconciliation, pastReconciliation } from './views/reconcile.js';
import { tabNodeView } from './views/tab-node.js';

const CART_POLL_MS = 1_200;
const CLUSTER_POLL_MS = 2_000;
const ORDERS_POLL_MS = 6_000;

const cartId = cartIdFromPath();
let node = initialNode();
const api = new Api(cartId, () => node);

const state = {
  products: [] as Product[],
  cart: undefined as CartView | undefined,
  cluster: undefined as ClusterView | undefined,
  orders: [] as readonly Order[],
  lastCheckout: undefined as CheckoutResult | undefined,
  checkingOut: 0,
  guideOpen: true,
  pastOpen: false,
  sawVersions: false,
};

/** Actions in flight, and how many have finished: a poll started before one finished is stale. */
let pending = 0;
let epoch = 0;

function toast(message: string, kind: 'error' | 'info' = 'error'): void {
  const box = document.getElementById('toasts');
  const el = h('div', { class: `toast ${kind}`, role: 'status' }, message);
  box?.append(el);
  setTimeout(() => el.remove(), kind === 'error' ? 6_000 : 3_000);
}

function openIn(): { id: string; url: string }[] {
  return (state.cluster?.nodes ?? [])
    .filter((n) => n.id !== node)
    .map((n) => ({ id: n.id, url: shareUrl(cartId, n.id) }));
}

const rendered = new Map<string, string>();

/** Re-renders a section only when what it shows changed (keeps hover, focus and open details). */
function section(id: string, inputs: unknown, build: () => HTMLElement | null): void {
  const key = JSON.stringify(inputs);
  if (rendered.get(id) === key) return;
  rendered.set(id, key);
  mount(document.getElementById(id), build());
}

function render(): void {
  const { cart, cluster } = state;
  const nodeIds = cluster?.nodes.map((n) => n.id) ?? [];
  section('tab-node', [nodeIds, node, cart?.servedBy], () =>
    tabNodeView(nodeIds, node, cart?.servedBy, pick),
  );
  section('cluster', [cluster, node, cart?.servedBy.nodeId], () =>
    clusterView(cluster, node, cart?.servedBy.nodeId, { stop, start, isolate, heal, talkTo: pick }),
  );
  section('guide', [cart?.count, cluster?.split, nodeIds, node, state.guideOpen, state.sawVersions], () =>
    guideView(
      {
        cart,
        cluster,
        tabNode: node,
        open: state.guideOpen,
        openIn: openIn(),
        sawVersions: state.sawVersions,
      },
      { isolate, heal, talkTo: pick, toggle: (open) => (state.guideOpen = open) },
    ),
  );
  section('reconciliation', [cart?.reconciliation, cart?.lastReconciliation, state.pastOpen], () => {
    if (cart?.reconciliation !== undefined) return liveReconciliation(cart.reconciliation, save);
    if (cart?.lastReconciliation !== undefined) {
      return pastReconciliation(cart.lastReconciliation, state.pastOpen, (open) => (state.pastOpen = open));
    }
    return null;
  });
  section('catalog', [state.products, cart?.items], () => catalogView(state.products, cart, add));
  const panel = {
    cart,
    orders: state.orders,
    lastCheckout: state.lastCheckout,
    shareUrl: shareUrl(cartId),
    openIn: openIn(),
    busy: state.checkingOut > 0,
  };
  section('cart', panel, () => cartView(panel, { setQuantity, remove, checkout, copy }));
  document.body.dataset.versions = String(cart?.versions ?? 0);
  document.body.dataset.count = cart === undefined ? '' : String(cart.count);
}

function setCart(cart: CartView): void {
  state.cart = cart;
  if (cart.versions > 1) state.sawVersions = true;
  render();
}

async function act<T>(run: () => Promise<T>, done: (result: T) => void): Promise<void> {
  pending++;
  try {
    done(await run());
  } catch (err) {
    if (err instanceof ApiError && err.code === 'UNKNOWN_NODE') pick('auto');
    toast(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
  } finally {
    pending--;
    epoch++;
    render();
  }
}

const add = (id: string): void => void act(() => api.add(id), setCart);
const remove = (id: string): void => void act(() => api.remove(id), setCart);
const save = (): void => void act(() => api.save(), setCart);
function setQuantity(id: string, quantity: number): void {
  if (quantity <= 0) remove(id);
  else void act(() => api.setQuantity(id, quantity), setCart);
}

function checkout(): void {
  const revision = state.cart?.revision;
  if (revision === undefined) return;
  state.checkingOut++;
  render();
  void act(
    () => api.checkout(`rev-${revision}`),
    (result) => {
      state.lastCheckout = result;
      setCart(result.cart);
      void loadOrders();
    },
  ).finally(() => {
    state.checkingOut--;
    render();
  });
}

const copy = (text: string): void => {
  void navigator.clipboard?.writeText(text).then(
    () => toast('Link copied: open it in another browser or tab.', 'info'),
    () => toast('Copy the link from the box.', 'info'),
  );
};

const setCluster = (view: ClusterView): void => {
  state.cluster = view;
  render();
};
const stop = (id: string): void => void act(() => api.nodeAction(id, 'stop'), setCluster);
function start(id: string): void {
  toast(`Starting ${id}…`, 'info');
  void act(() => api.nodeAction(id, 'start'), setCluster);
}
const isolate = (id: string): void => void act(() => api.split(id), setCluster);
const heal = (): void => void act(() => api.heal(), setCluster);

function pick(id: string): void {
  node = id;
  saveNode(id);
  render();
  void act(() => api.getCart(), setCart);
}

async function loadOrders(): Promise<void> {
  const { orders } = await api.orders();
  state.orders = orders;
  render();
}

/** Runs `fn` every `ms`, skipping while this tab has an action in flight. */
function every(ms: number, fn: () => Promise<void>): void {
  const tick = async (): Promise<void> => {
    if (pending === 0) await fn().catch(() => {});
    setTimeout(() => void tick(), ms);
  };
  void tick();
}

async function pollCart(): Promise<void> {
  const before = epoch;
  try {
    const cart = await api.getCart();
    if (before === epoch && pending === 0) setCart(cart);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'UNKNOWN_NODE') pick('auto');
  }
}

async function boot(): Promise<void> {
  if (cartId === '') {
    location.href = '/';
    return;
  }
  document.body.dataset.cart = cartId;
  state.products = (await api.catalog()).products;
  render();
  every(CART_POLL_MS, pollCart);
  every(CLUSTER_POLL_MS, async () => setCluster(await api.cluster()));
  every(ORDERS_POLL_MS, loadOrders);
}

void boot();
