/**
 * The cart as a small CRDT stored inside the value: an observed-remove set of line fragments,
 * on the same tagged core as orSet() (resolvers/tags.ts), with a rule for quantities on top.
 *
 * - Every change that adds makes a line under a fresh random tag: `add` lines are deltas, `set`
 *   lines (from setQuantity) are absolute quantities.
 * - Removing (or setting a quantity) tombstones exactly the tags of that item the writer saw.
 * - Merging takes the union of lines, drops every tombstoned tag, and keeps the union of
 *   tombstones. So an add survives unless a writer saw it and removed it: no add is lost, and an
 *   item removed after being seen never comes back, whatever order versions meet in.
 * - An item's quantity is the largest of its live `set` lines (0 if none) plus the sum of its live
 *   `add` lines. Live set lines are always concurrent (a later one tombstones an earlier one it
 *   saw), so concurrent setQuantity calls resolve to the larger quantity, and adds that no set saw
 *   come on top of it.
 * - Tombstones are bounded: at most `tombstonesMax` (default 1000) are kept, the most recent ones
 *   by removal time. A tombstone is only needed while a version that still holds its tag may
 *   surface; dropping older ones can bring an item back only from a version that stayed apart
 *   for longer than the last `tombstonesMax` removals (docs/resolvers.md).
 */
import { compareText } from '../canonical.js';
import { keptTombstones, mergeTagged, sortedEntries, TOMBSTONES_MAX } from '../resolvers/tags.js';

export const CART_TYPE = 'tessera.cart';
export const CART_TOMBSTONES_MAX = TOMBSTONES_MAX;
export const CART_QUANTITY_MAX = 1_000_000;

export interface CartLine {
  /** The item (a SKU or product id). */
  readonly item: string;
  /** For an add line: how many were added; for a set line: the quantity set. */
  readonly qty: number;
  /** true for a line written by setQuantity. */
  readonly set?: true;
  /** When the line was made (the writer's clock, ms since the epoch); informational. */
  readonly at: number;
}

export interface Cart {
  readonly type: typeof CART_TYPE;
  readonly v: 1;
  /** Live lines by tag. */
  readonly lines: Readonly<Record<string, CartLine>>;
  /** Tombstoned tags, each with when it was removed (ms since the epoch). */
  readonly removed: Readonly<Record<string, number>>;
}

export interface CartOptions {
  /** How many tombstones a cart keeps at most (the most recent). Default 1000. */
  readonly tombstonesMax?: number;
}

export function emptyCart(): Cart {
  return { type: CART_TYPE, v: 1, lines: {}, removed: {} };
}

/**
 * The merge of any number of carts: commutative, associative and idempotent (property-tested),
 * as long as no tombstone needed by a line still in play was dropped by the bound.
 */
export function mergeCarts(carts: readonly Cart[], options: CartOptions = {}): Cart {
  const { entries, removed } = mergeTagged(carts.map((c) => ({ entries: c.lines, removed: c.removed })));
  return build(entries, removed, options);
}

/** A cart from lines and tombstones: keys sorted (stable JSON), tombstones bounded. */
export function build(
  lines: ReadonlyMap<string, CartLine>,
  removed: ReadonlyMap<string, number>,
  options: CartOptions = {},
): Cart {
  const kept = keptTombstones(removed, options.tombstonesMax ?? CART_TOMBSTONES_MAX);
  return {
    type: CART_TYPE,
    v: 1,
    lines: Object.fromEntries(sortedEntries(lines).map(([tag, line]) => [tag, copyLine(line)])),
    removed: Object.fromEntries(kept),
  };
}

function copyLine(line: CartLine): CartLine {
  return line.set === true
    ? { item: line.item, qty: line.qty, set: true, at: line.at }
    : { item: line.item, qty: line.qty, at: line.at };
}

export interface CartItem {
  readonly item: string;
  readonly quantity: number;
}

/** The items with a positive quantity, sorted by item. */
export function cartItems(cart: Cart | undefined): CartItem[] {
  if (cart === undefined) return [];
  const sets = new Map<string, number>();
  const adds = new Map<string, number>();
  for (const line of Object.values(cart.lines)) {
    if (line.set === true) sets.set(line.item, Math.max(sets.get(line.item) ?? 0, line.qty));
    else adds.set(line.item, (adds.get(line.item) ?? 0) + line.qty);
  }
  const items = new Set([...sets.keys(), ...adds.keys()]);
  return [...items]
    .map((item) => ({ item, quantity: (sets.get(item) ?? 0) + (adds.get(item) ?? 0) }))
    .filter((i) => i.quantity > 0)
    .sort((a, b) => compareText(a.item, b.item));
}

/** The quantity of one item (0 when it is not in the cart). */
export function cartQuantity(cart: Cart | undefined, item: string): number {
  return cartItems(cart).find((i) => i.item === item)?.quantity ?? 0;
}
