/** What the page knows, in one place (see store.ts). */
import type { CartView, ClusterView, Order, Product } from '../../shared/api.js';
import type { CheckoutNote } from './checkout.js';
import type { RemovedLine } from './removals.js';

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
  /** Orders of the cart this tab has already told about (or that were old when it opened). */
  readonly knownOrders: ReadonlySet<string> | undefined;
  /** Lines this tab just removed: they keep their place for a moment, with an undo. */
  readonly removed: readonly RemovedLine[];
  /** Checkouts in flight. */
  readonly checkingOut: number;
  readonly ui: { readonly guideOpen: boolean; readonly pastOpen: boolean };
}

export function initialState(cartId: string, tab: AppState['tab']): AppState {
  return {
    cartId,
    tab,
    products: [],
    cart: undefined,
    cluster: undefined,
    orders: [],
    checkout: undefined,
    knownOrders: undefined,
    removed: [],
    checkingOut: 0,
    ui: { guideOpen: true, pastOpen: false },
  };
}
