/** What the page knows, in one place (see store.ts). */
import type { CartView, ClusterView, Order, Product, ReplicasView } from '../../shared/api.js';
import type { CheckoutNote, CheckoutRefusal } from './checkout.js';
import type { Narration } from './narration.js';
import type { RemovedLine } from './removals.js';
import type { SavedWrite } from './saved.js';

/** The cluster picture the store last answered, and whether the last poll of it failed since. */
export interface ClusterSnapshot {
  readonly view: ClusterView;
  readonly stale: boolean;
}

export interface AppState {
  readonly cartId: string;
  /** This tab: its id (sent with every request) and the node it talks to ("auto" or an id). */
  readonly tab: { readonly id: string; readonly node: string };
  readonly products: readonly Product[];
  readonly cart: CartView | undefined;
  readonly cluster: ClusterSnapshot | undefined;
  readonly orders: readonly Order[];
  /** The note about this tab's last checkout. */
  readonly checkout: CheckoutNote | undefined;
  /** This tab's last checkout, when the store refused it (sold out): until its next change or press. */
  readonly refusal: CheckoutRefusal | undefined;
  /** How many of each product are left (the strong keys `stock/<id>`), as last read. */
  readonly stock: StockSnapshot | undefined;
  /** Orders of the cart this tab has already told about (or that were old when it opened). */
  readonly knownOrders: ReadonlySet<string> | undefined;
  /** Lines this tab just removed: they keep their place for a moment, with an undo. */
  readonly removed: readonly RemovedLine[];
  /** Checkouts in flight. */
  readonly checkingOut: number;
  readonly ui: { readonly guideOpen: boolean; readonly pastOpen: boolean; readonly mode: PageMode };
  /** How this tab's last write of the cart was stored (the "saved on n0 only" note). */
  readonly saved: SavedWrite | undefined;
  /** Every node's own copy of the cart, as the store last read them. */
  readonly replicas: ReplicasView | undefined;
  /** Split-screen: the second cart on the page, a tab of its own bound to another node. */
  readonly second: SecondPane;
  /** The story player, while it plays and after. */
  readonly narration: Narration | undefined;
}

export interface StockSnapshot {
  readonly left: Readonly<Record<string, number>>;
  readonly observedAt: string;
}

/** shop: the catalog and the cart; split: the same cart twice, through two nodes, side by side. */
export type PageMode = 'shop' | 'split';

export interface SecondPane {
  /** Its own tab id: the store's story counts it as a second tab. */
  readonly id: string;
  /** The node it talks to; undefined until the page knows the nodes. */
  readonly node: string | undefined;
  readonly cart: CartView | undefined;
  /** How this half's last write was stored. */
  readonly saved: SavedWrite | undefined;
}

export function initialState(cartId: string, tab: AppState['tab'], mode: PageMode = 'shop'): AppState {
  return {
    cartId,
    tab,
    products: [],
    cart: undefined,
    cluster: undefined,
    orders: [],
    checkout: undefined,
    refusal: undefined,
    stock: undefined,
    knownOrders: undefined,
    removed: [],
    checkingOut: 0,
    ui: { guideOpen: true, pastOpen: false, mode },
    saved: undefined,
    replicas: undefined,
    second: { id: `${tab.id}-2`, node: undefined, cart: undefined, saved: undefined },
    narration: undefined,
  };
}
