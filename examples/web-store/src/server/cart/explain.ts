/**
 * Explains a cart's sibling versions for people: what each version changed that the others did
 * not see (its adds, quantity changes and removals), and where each line of the merged cart came
 * from. Pure: it reads the cart CRDT's lines (each add is a line under a unique tag) and
 * tombstones (the tags a writer saw and removed), so it needs no history beyond the versions.
 *
 * In version V, a line is "new here" when some other version has never heard of its tag (neither
 * live nor tombstoned): V's writer added it concurrently. A tag tombstoned in V but live in
 * another version is a removal the other did not see.
 */
import { type Cart, type CartLine, cart, type Version } from '@tessera/client';
import type {
  MergedItem,
  MergedRemoval,
  Reconciliation,
  VersionChange,
  VersionItem,
  VersionView,
} from '../../shared/api.js';

export interface Provenance {
  /** The node a line was added through, if known. */
  added(tag: string): string | undefined;
  /** The node a line was removed through, if known. */
  removed(tag: string): string | undefined;
}

const knows = (c: Cart, tag: string): boolean => Object.hasOwn(c.lines, tag) || Object.hasOwn(c.removed, tag);

function tagsOf(c: Cart, item: string): [string, CartLine][] {
  return Object.entries(c.lines).filter(([, line]) => line.item === item);
}

export function label(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `V${index + 1}`;
}

interface Side {
  readonly label: string;
  readonly cart: Cart;
  readonly others: readonly Cart[];
}

/** Tags live in this version that some other version never heard of. */
function isNewHere(side: Side, tag: string): boolean {
  return side.others.some((o) => !knows(o, tag));
}

/** Tags this version tombstoned while some other version still has them live. */
function removedHere(side: Side): string[] {
  return Object.keys(side.cart.removed).filter((tag) => side.others.some((o) => Object.hasOwn(o.lines, tag)));
}

function changeOf(side: Side, item: string): VersionChange {
  const live = tagsOf(side.cart, item);
  const fresh = live.filter(([tag]) => isNewHere(side, tag));
  if (fresh.length === 0) return 'same';
  if (fresh.some(([, line]) => line.set === true)) return 'set';
  return fresh.length === live.length ? 'added' : 'more';
}

function versionView(
  side: Side,
  sides: readonly Side[],
  lastModified: Date,
  name: (id: string) => string,
  provenance: Provenance,
): VersionView {
  const items: VersionItem[] = cart.items(side.cart).map(({ item, quantity }) => {
    const tags = tagsOf(side.cart, item).map(([tag]) => tag);
    const removedElsewhere = sides
      .filter((s) => s !== side && tags.some((tag) => Object.hasOwn(s.cart.removed, tag)))
      .map((s) => s.label);
    return { productId: item, name: name(item), quantity, change: changeOf(side, item), removedElsewhere };
  });
  const removedTags = removedHere(side);
  const removedItems = new Set(
    removedTags.flatMap((tag) => side.others.map((o) => o.lines[tag]?.item).filter((i) => i !== undefined)),
  );
  for (const item of removedItems) {
    if (cart.quantity(side.cart, item) > 0) continue;
    items.push({ productId: item, name: name(item), quantity: 0, change: 'removed', removedElsewhere: [] });
  }
  const freshTags = Object.keys(side.cart.lines).filter((tag) => isNewHere(side, tag));
  const via = new Set(
    [...freshTags.map((t) => provenance.added(t)), ...removedTags.map((t) => provenance.removed(t))].filter(
      (v): v is string => v !== undefined,
    ),
  );
  return {
    label: side.label,
    lastModified: lastModified.toISOString(),
    via: [...via].sort(),
    items: items.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

const CHANGED: Readonly<Record<VersionChange, string>> = {
  same: 'In',
  added: 'Added in',
  more: 'More added in',
  set: 'Quantity set in',
  removed: 'Removed in',
};

function mergedNote(
  from: readonly string[],
  all: number,
  views: readonly VersionView[],
  item: string,
): string {
  const entry = (v: VersionView) => v.items.find((i) => i.productId === item);
  const changed = views.filter((v) => (entry(v)?.change ?? 'same') !== 'same');
  const sets = changed.filter((v) => entry(v)?.change === 'set');
  const removers = [...new Set(views.flatMap((v) => entry(v)?.removedElsewhere ?? []))];
  if (sets.length > 1)
    return `Quantity set in ${sets.map((v) => v.label).join(' and ')} at once: the larger wins.`;
  if (removers.length > 0) {
    return `${removers.join(' and ')} removed the lines it had seen; an add it had not seen survives.`;
  }
  if (changed.length > 1) return `Changes from ${changed.map((v) => v.label).join(' and ')} add up.`;
  const only = changed[0];
  if (only !== undefined) return `${CHANGED[entry(only)?.change ?? 'same']} ${only.label}.`;
  return from.length === all ? 'In every version.' : `From ${from.join(' and ')}.`;
}

/** The reconciliation of sibling carts, in the order given (oldest first). */
export function explain(
  versions: readonly Version<Cart>[],
  name: (id: string) => string,
  provenance: Provenance,
): Reconciliation {
  const carts = versions.map((v) => v.value);
  const sides: Side[] = carts.map((c, i) => ({
    label: label(i),
    cart: c,
    others: carts.filter((_, j) => j !== i),
  }));
  const views = sides.map((side, i) => versionView(side, sides, versions[i]!.lastModified, name, provenance));
  const merged = cart.merge(carts);
  const mergedItems: MergedItem[] = cart.items(merged).map(({ item, quantity }) => {
    const tags = tagsOf(merged, item).map(([tag]) => tag);
    const from = sides.filter((s) => tags.some((t) => Object.hasOwn(s.cart.lines, t))).map((s) => s.label);
    return {
      productId: item,
      name: name(item),
      quantity,
      from,
      note: mergedNote(from, sides.length, views, item),
    };
  });
  const lost = new Set(
    carts
      .flatMap((c) => cart.items(c).map((i) => i.item))
      .filter((item) => cart.quantity(merged, item) === 0),
  );
  const removed: MergedRemoval[] = [...lost].map((item) => {
    const removers = sides.filter((s) =>
      removedHere(s).some((tag) => s.others.some((o) => o.lines[tag]?.item === item)),
    );
    const via = removers.flatMap((s) =>
      removedHere(s)
        .filter((tag) => s.others.some((o) => o.lines[tag]?.item === item))
        .map((tag) => provenance.removed(tag))
        .filter((v): v is string => v !== undefined),
    );
    return {
      productId: item,
      name: name(item),
      removedIn: removers.map((s) => s.label),
      via: [...new Set(via)],
    };
  });
  return {
    versions: views,
    merged: mergedItems.sort((a, b) => a.name.localeCompare(b.name)),
    removed: removed.sort((a, b) => a.name.localeCompare(b.name)),
    unionWouldResurrect: removed.map((r) => r.name),
  };
}
