/**
 * What each sibling version of a cart did that the others did not see, item by item. Pure. It
 * reads the cart CRDT's lines (each add is a line under a unique tag) and tombstones (the tags a
 * writer saw and removed, each with the time of the removal), so it needs no history beyond the
 * versions, except the item of a line every version has removed since (see `Provenance.item`).
 *
 * In version V:
 * - a live line is new here when some other version has never heard of its tag: V's writer added
 *   it concurrently;
 * - a tombstone is V's own removal when another version still has that line live, or removed it
 *   too but at another time (on its own: setting a quantity also replaces the lines it saw).
 */
import { type Cart, type CartLine, cart } from '@tessera/client';
import type { VersionChange } from '../../shared/api.js';

export interface Provenance {
  /** The node a line was added through, if known. */
  added(tag: string): string | undefined;
  /** The node a line was removed through, by the removal's (tombstone's) time, if known. */
  removed(tag: string, at: number): string | undefined;
  /** The item a line was of, if known: for a line no version holds live any more. */
  item(tag: string): string | undefined;
}

export interface Side {
  readonly label: string;
  readonly cart: Cart;
  readonly others: readonly Cart[];
}

/** How one version stands on one item. */
export interface ItemInSide {
  readonly side: Side;
  readonly quantity: number;
  readonly change: VersionChange;
  /** This version removed the item (its own removal) and holds none of it. */
  readonly removed: boolean;
}

export function label(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `V${index + 1}`;
}

export function sidesOf(carts: readonly Cart[]): Side[] {
  return carts.map((c, i) => ({ label: label(i), cart: c, others: carts.filter((_, j) => j !== i) }));
}

const knows = (c: Cart, tag: string): boolean => Object.hasOwn(c.lines, tag) || Object.hasOwn(c.removed, tag);

export function tagsOf(c: Cart, item: string): [string, CartLine][] {
  return Object.entries(c.lines).filter(([, line]) => line.item === item);
}

/** A live line of this version that some other version never heard of. */
export function isNewHere(side: Side, tag: string): boolean {
  return side.others.some((o) => !knows(o, tag));
}

/** Tombstones this version made on its own (see the file's comment). */
export function ownRemovals(side: Side): string[] {
  return Object.entries(side.cart.removed)
    .filter(([tag, at]) =>
      side.others.some(
        (o) => Object.hasOwn(o.lines, tag) || (Object.hasOwn(o.removed, tag) && o.removed[tag] !== at),
      ),
    )
    .map(([tag]) => tag);
}

/** The item of a line, from any version that holds it live, else from what the store remembers. */
export function itemOfTag(tag: string, carts: readonly Cart[], provenance: Provenance): string | undefined {
  for (const c of carts) {
    const line = c.lines[tag];
    if (line !== undefined) return line.item;
  }
  return provenance.item(tag);
}

function changeOf(side: Side, item: string): VersionChange {
  const live = tagsOf(side.cart, item);
  const fresh = live.filter(([tag]) => isNewHere(side, tag));
  if (fresh.length === 0) return 'same';
  if (fresh.some(([, line]) => line.set === true)) return 'set';
  return fresh.length === live.length ? 'added' : 'more';
}

/** The items this version removed on its own. */
export function removedItems(side: Side, provenance: Provenance): Set<string> {
  const all = [side.cart, ...side.others];
  return new Set(
    ownRemovals(side)
      .map((tag) => itemOfTag(tag, all, provenance))
      .filter((i): i is string => i !== undefined),
  );
}

export function itemInSide(side: Side, item: string, removed: ReadonlySet<string>): ItemInSide {
  const quantity = cart.quantity(side.cart, item);
  const isRemoved = quantity === 0 && removed.has(item);
  return { side, quantity, change: isRemoved ? 'removed' : changeOf(side, item), removed: isRemoved };
}
