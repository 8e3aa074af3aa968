/**
 * The store's JSON API as the page sees it: one set of types for the server and the browser code.
 * Types only (no runtime code), so either side can import it with `import type`.
 */

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly blurb: string;
  readonly priceCents: number;
  /** URL of the product's drawing (an SVG the store draws itself). */
  readonly image: string;
}

/** Which node a request went through, and how. */
export interface ServedBy {
  /** The node the tab asked for: a node id, or "auto" (the first node that answers). */
  readonly asked: string;
  /** The node that answered. */
  readonly nodeId: string;
  /** The asked node was unreachable, so another one answered. */
  readonly fallback: boolean;
  /** The node could not reach a quorum of replicas: it read and wrote its own copy alone. */
  readonly degraded: boolean;
  /** One sentence for people. */
  readonly note: string;
}

export interface CartLineView {
  readonly productId: string;
  readonly name: string;
  readonly image: string;
  readonly quantity: number;
  readonly priceCents: number;
  readonly subtotalCents: number;
}

/** How an item stands in one version, compared with the other versions. */
export type VersionChange = 'same' | 'added' | 'more' | 'set' | 'removed';

export interface VersionItem {
  readonly productId: string;
  readonly name: string;
  /** The quantity in this version (0 for an item this version removed). */
  readonly quantity: number;
  readonly change: VersionChange;
  /** Labels of the other versions that removed this item (this one still has it). */
  readonly removedElsewhere: readonly string[];
}

export interface VersionView {
  /** "A", "B", … in the order of the versions' timestamps. */
  readonly label: string;
  readonly lastModified: string;
  /** Nodes the store wrote this version's own changes through (when the store remembers). */
  readonly via: readonly string[];
  readonly items: readonly VersionItem[];
}

export interface MergedItem {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
  /** Labels of the versions whose lines make up this item. */
  readonly from: readonly string[];
  readonly note: string;
}

export interface MergedRemoval {
  readonly productId: string;
  readonly name: string;
  /** Labels of the versions that removed it. */
  readonly removedIn: readonly string[];
  readonly via: readonly string[];
}

/** Sibling versions of a cart, and what the cart resolver made of them. */
export interface Reconciliation {
  readonly versions: readonly VersionView[];
  readonly merged: readonly MergedItem[];
  readonly removed: readonly MergedRemoval[];
  /** Names of items a plain union of the versions (the paper's cart) would have brought back. */
  readonly unionWouldResurrect: readonly string[];
}

export interface PastReconciliation extends Reconciliation {
  readonly resolvedAt: string;
  /** What wrote the merge back: "save", "add", "remove", "checkout", … */
  readonly resolvedBy: string;
  readonly via: string;
}

export interface CartView {
  readonly cartId: string;
  readonly items: readonly CartLineView[];
  readonly count: number;
  readonly totalCents: number;
  /** How many versions (siblings) the read returned. */
  readonly versions: number;
  /** Names the cart's content (its live lines): checkout keys are made per revision. */
  readonly revision: string;
  /** Present while the cart has more than one version. */
  readonly reconciliation?: Reconciliation;
  /** The last reconciliation a write resolved (kept by this store process). */
  readonly lastReconciliation?: PastReconciliation;
  readonly servedBy: ServedBy;
}

export interface OrderLine {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
  readonly priceCents: number;
}

export interface Order {
  readonly id: string;
  readonly cartId: string;
  readonly lines: readonly OrderLine[];
  readonly totalCents: number;
  readonly createdAt: string;
  /** The cart lines (tags) this order took out of the cart. */
  readonly consumed: readonly string[];
}

export interface CheckoutResult {
  readonly order: Order;
  /** true when this idempotency key had already placed the order: nothing new was ordered. */
  readonly replayed: boolean;
  readonly cart: CartView;
}

export interface OrdersView {
  readonly orders: readonly Order[];
}

export type LinkState = 'ok' | 'blocked' | 'unknown';

export interface NodeView {
  readonly id: string;
  readonly url: string;
  /** The store started this node's process and can stop and restart it. */
  readonly managed: boolean;
  /** For a managed node: whether its process runs. */
  readonly running: boolean | null;
  readonly pid: number | null;
  /** Its HTTP API answered just now. */
  readonly reachable: boolean;
  /** How this node sees the others (its own /v1/status). */
  readonly sees: readonly { readonly id: string; readonly status: string }[];
  /** Peers it drops traffic to (fault injection); null when fault injection is off or unknown. */
  readonly blocks: readonly string[] | null;
  readonly partitions: number | null;
}

export interface ClusterView {
  readonly nodes: readonly NodeView[];
  /** Links between every two nodes, as `a`-`b` with a < b. */
  readonly links: readonly { readonly a: string; readonly b: string; readonly state: LinkState }[];
  /** The sides of the current split, or null when every reachable node talks to every other. */
  readonly split: readonly (readonly string[])[] | null;
  readonly canControlProcesses: boolean;
  readonly faultInjection: boolean;
  readonly quorum: { readonly n: number; readonly r: number; readonly w: number } | null;
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
}
