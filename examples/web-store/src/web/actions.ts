/**
 * What the user can do on the page: each action calls the store's API and puts the answer into
 * the state store. Errors become toasts.
 */
import type { CartLineView, CartView, ClusterView } from '../shared/api.js';
import { type Api, ApiError } from './api.js';
import type { Inflight } from './inflight.js';
import type { Panes } from './panes.js';
import type { AppState, PageMode } from './state/app-state.js';
import { noteAfter, refusalOf } from './state/checkout.js';
import { pruned, REMOVED_SHOWN_MS, withRemoved } from './state/removals.js';
import type { Store } from './state/store.js';
import { withCart, withCluster, withSecondNode, withStock } from './state/updates.js';
import { StoryPlayer } from './story/player.js';
import { storySpeed } from './story/timing.js';
import { saveMode, saveNode } from './tab.js';
import { toast } from './toast.js';

export interface Actions {
  readonly add: (productId: string) => void;
  readonly setQuantity: (line: CartLineView, quantity: number) => void;
  readonly remove: (line: CartLineView) => void;
  readonly undo: (line: CartLineView) => void;
  readonly save: () => void;
  readonly checkout: () => void;
  readonly copy: (text: string) => void;
  readonly stop: (id: string) => void;
  readonly start: (id: string) => void;
  readonly isolate: (id: string) => void;
  readonly heal: () => void;
  readonly pick: (node: string) => void;
  readonly openSecond: (node: string) => void;
  readonly showCart: () => void;
  readonly showMerge: () => void;
  readonly toggleGuide: (open: boolean) => void;
  readonly togglePast: (open: boolean) => void;
  /** The right half of the split screen: its cart changes and its node. */
  readonly second: SecondHandlers;
  readonly setMode: (mode: PageMode) => void;
  /** Opens a fresh cart in split-screen that plays the story. */
  readonly play: () => void;
  /** Plays the story on this page (it must be in split-screen). */
  readonly playHere: () => void;
  readonly stopStory: () => void;
  readonly dismissStory: () => void;
}

export interface SecondHandlers {
  readonly add: (productId: string) => void;
  readonly setQuantity: (line: CartLineView, quantity: number) => void;
  readonly remove: (line: CartLineView) => void;
  readonly pick: (node: string) => void;
}

/**
 * When a scroll is checked again: the page may still be laying out what the click changed (on a
 * loaded machine, for seconds).
 */
const SCROLL_RECHECK_MS = [300, 900, 1_800, 3_000, 5_000];
/** How far a section may be from its place under the header before it is brought back. */
const SCROLL_SLACK_PX = 24;
/** What says the reader is moving the page themselves: then it is left where they take it. */
const READER_INPUT = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

/**
 * Scrolls smoothly, or at once for readers who asked for less motion. Then, a few times within
 * five seconds, brings the section back under the header if it is not there: it may not have been
 * drawn yet, or what was drawn after the click (cards, notes) moved it or cut the smooth scroll
 * short. Once the reader scrolls, types or taps, it stops. While it follows the section, the
 * page's root element says which (`data-following`).
 */
function scrollTo(id: string): void {
  const root = document.documentElement;
  const go = (behavior: ScrollBehavior) =>
    document.getElementById(id)?.scrollIntoView({ behavior, block: 'start' });
  go(matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth');
  let following = true;
  const stop = (): void => {
    following = false;
    for (const type of READER_INPUT) removeEventListener(type, stop);
    if (root.dataset.following === id) delete root.dataset.following;
  };
  root.dataset.following = id;
  for (const type of READER_INPUT) addEventListener(type, stop, { passive: true });
  SCROLL_RECHECK_MS.forEach((ms, i) => {
    setTimeout(() => {
      const section = document.getElementById(id);
      if (!following) return;
      const place = section === null ? 0 : Number.parseFloat(getComputedStyle(section).scrollMarginTop) || 0;
      if (section !== null && Math.abs(section.getBoundingClientRect().top - place) > SCROLL_SLACK_PX)
        go('auto');
      if (i === SCROLL_RECHECK_MS.length - 1) stop();
    }, ms);
  });
}

export function createActions(
  store: Store<AppState>,
  api: Api,
  inflight: Inflight,
  panes: Panes,
  refresh: () => Promise<void>,
  refreshReplicas: () => Promise<void>,
): Actions {
  const failed = (err: unknown): void => {
    if (err instanceof ApiError && err.code === 'UNKNOWN_NODE') pick('auto');
    toast(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
  };
  const act = async <T>(run: () => Promise<T>, done: (result: T) => void): Promise<void> => {
    try {
      done(await inflight.run(run));
    } catch (err) {
      failed(err);
    }
  };
  const readStock = (): void =>
    void api.stock().then(
      (view) => store.update((s) => withStock(s, view)),
      () => {},
    );
  const changed = (cart: CartView): void => {
    // A change to the cart answers the last refusal: the customer is doing something about it.
    store.update((s) => ({ ...withCart(s, cart, true), refusal: undefined }));
    // Every node's copy changed too: read them now rather than at the next poll.
    void refreshReplicas().catch(() => {});
  };
  const clusterChanged = (view: ClusterView): void => store.update((s) => withCluster(s, view));

  function pick(node: string): void {
    saveNode(node);
    store.update((s) => ({ ...s, tab: { ...s.tab, node } }));
    void act(
      () => api.getCart(),
      (cart) => store.update((s) => withCart(s, cart, false)),
    );
  }

  const report = (err: unknown): void => {
    toast(err instanceof ApiError ? `${err.message} (${err.code})` : String(err));
  };
  const player = new StoryPlayer(
    store,
    () => ({
      store,
      left: panes.left,
      right: panes.right,
      isolate: async (id) => clusterChanged(await api.split(id)),
      heal: async () => clusterChanged(await api.heal()),
      refresh,
      showMerge: () => scrollTo('reconciliation'),
      speed: storySpeed(location.search),
    }),
    async () => clusterChanged(await api.heal()),
  );

  const remove = (line: CartLineView): void => {
    store.update((s) => ({ ...s, removed: withRemoved(s.removed, line, Date.now()) }));
    setTimeout(
      () => store.update((s) => ({ ...s, removed: pruned(s.removed, Date.now()) })),
      REMOVED_SHOWN_MS + 50,
    );
    void act(() => api.remove(line.productId), changed);
  };

  return {
    add: (id) => void act(() => api.add(id), changed),
    setQuantity: (line, quantity) =>
      quantity <= 0 ? remove(line) : void act(() => api.setQuantity(line.productId, quantity), changed),
    remove,
    undo: (line) => {
      store.update((s) => ({ ...s, removed: s.removed.filter((r) => r.line.productId !== line.productId) }));
      void act(() => api.add(line.productId, line.quantity), changed);
    },
    save: () => void act(() => api.save(), changed),
    checkout: () => {
      const revision = store.get().cart?.revision;
      if (revision === undefined) return;
      store.update((s) => ({ ...s, checkingOut: s.checkingOut + 1, refusal: undefined }));
      void inflight
        .run(() => api.checkout(`rev-${revision}`))
        .then(
          (result) => {
            store.update((s) => ({
              ...withCart(s, result.cart, true),
              checkout: noteAfter(s.checkout, result, result.cart.story),
            }));
            void api.orders().then(
              (o) => store.update((s) => ({ ...s, orders: o.orders })),
              () => {},
            );
          },
          (err: unknown) => {
            // Sold out (or no majority, or too much contention): nothing was ordered and the cart
            // is as it was. The reason stays under the button, naming the item that ran out.
            const refusal =
              err instanceof ApiError ? refusalOf(err.code, err.message, err.details) : undefined;
            if (refusal === undefined) failed(err);
            else store.update((s) => ({ ...s, refusal, checkout: undefined }));
          },
        )
        .finally(() => {
          store.update((s) => ({ ...s, checkingOut: s.checkingOut - 1 }));
          readStock();
        });
    },
    copy: (text) => {
      void navigator.clipboard?.writeText(text).then(
        () => toast('Link copied: open it in another browser or tab.', 'info'),
        () => toast('Copy the link from the box.', 'info'),
      );
    },
    stop: (id) => void act(() => api.nodeAction(id, 'stop'), clusterChanged),
    start: (id) => {
      toast(`Starting ${id}…`, 'info');
      void act(() => api.nodeAction(id, 'start'), clusterChanged);
    },
    isolate: (id) => void act(() => api.split(id), clusterChanged),
    heal: () => void act(() => api.heal(), clusterChanged),
    pick,
    // After the click: the link opens the second tab before this one is drawn again.
    openSecond: (node) => {
      if (store.get().tab.node === 'auto') setTimeout(() => pick(node), 0);
    },
    showCart: () => scrollTo('cart'),
    showMerge: () => scrollTo('reconciliation'),
    toggleGuide: (open) => store.update((s) => ({ ...s, ui: { ...s.ui, guideOpen: open } })),
    togglePast: (open) => store.update((s) => ({ ...s, ui: { ...s.ui, pastOpen: open } })),
    second: {
      add: (id) => void panes.right.add(id).catch(report),
      setQuantity: (line, q) =>
        void (q <= 0 ? panes.right.remove(line.productId) : panes.right.set(line.productId, q)).catch(report),
      remove: (line) => void panes.right.remove(line.productId).catch(report),
      pick: (node) => store.update((s) => withSecondNode(s, node)),
    },
    setMode: (mode) => {
      saveMode(mode);
      store.update((s) => ({ ...s, ui: { ...s.ui, mode } }));
    },
    play: () => StoryPlayer.openFresh(),
    playHere: () => void player.play(),
    stopStory: () => player.stop(),
    dismissStory: () => store.update((s) => ({ ...s, narration: undefined })),
  };
}
