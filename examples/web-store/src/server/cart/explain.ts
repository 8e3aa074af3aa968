/**
 * Explains a cart's sibling versions for people: what each version changed that the others did
 * not see (its adds, quantity changes and removals), where each line of the merged cart came from,
 * and which rule of the resolver decided each item (analysis.ts, rules.ts). Pure.
 */
import { type Cart, cart, type Version } from '@tessera/client';
import type {
  MergedItem,
  MergedRemoval,
  Reconciliation,
  VersionItem,
  VersionView,
} from '../../shared/api.js';
import {
  type ItemInSide,
  isNewHere,
  itemInSide,
  ownRemovals,
  type Provenance,
  removedItems,
  type Side,
  sidesOf,
  tagsOf,
} from './analysis.js';
import { noteFor, ruleCase, ruleFor, rulesApplied } from './rules.js';

export type { Provenance } from './analysis.js';
export { label } from './analysis.js';

function versionView(
  side: Side,
  facts: ReadonlyMap<string, readonly ItemInSide[]>,
  lastModified: Date,
  name: (id: string) => string,
  provenance: Provenance,
): VersionView {
  const items: VersionItem[] = [];
  for (const [item, inSides] of facts) {
    const mine = inSides.find((s) => s.side === side)!;
    if (mine.quantity === 0 && !mine.removed) continue;
    const removedElsewhere = mine.removed
      ? []
      : inSides.filter((s) => s.side !== side && s.removed).map((s) => s.side.label);
    items.push({
      productId: item,
      name: name(item),
      quantity: mine.quantity,
      change: mine.change,
      removedElsewhere,
    });
  }
  const freshTags = Object.keys(side.cart.lines).filter((tag) => isNewHere(side, tag));
  const via = new Set(
    [
      ...freshTags.map((t) => provenance.added(t)),
      ...ownRemovals(side).map((t) => provenance.removed(t, side.cart.removed[t]!)),
    ].filter((v): v is string => v !== undefined),
  );
  return {
    label: side.label,
    lastModified: lastModified.toISOString(),
    via: [...via].sort(),
    items: items.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** The reconciliation of sibling carts, in the order given (oldest first). */
export function explain(
  versions: readonly Version<Cart>[],
  name: (id: string) => string,
  provenance: Provenance,
): Reconciliation {
  const carts = versions.map((v) => v.value);
  const sides = sidesOf(carts);
  const removedBy = new Map(sides.map((s) => [s, removedItems(s, provenance)]));
  const everyItem = new Set([
    ...carts.flatMap((c) => cart.items(c).map((i) => i.item)),
    ...[...removedBy.values()].flatMap((set) => [...set]),
  ]);
  const facts = new Map<string, ItemInSide[]>(
    [...everyItem].map((item) => [item, sides.map((s) => itemInSide(s, item, removedBy.get(s)!))]),
  );
  const merged = cart.merge(carts);
  const mergedItems: MergedItem[] = [];
  const removed: MergedRemoval[] = [];
  const cases: Parameters<typeof rulesApplied>[0][number][] = [];
  for (const [item, inSides] of facts) {
    const quantity = cart.quantity(merged, item);
    const rule = ruleFor(inSides, quantity);
    cases.push({ rule, case: ruleCase({ productId: item, name: name(item) }, inSides, quantity) });
    if (quantity > 0) {
      const tags = tagsOf(merged, item).map(([tag]) => tag);
      const from = sides.filter((s) => tags.some((t) => Object.hasOwn(s.cart.lines, t))).map((s) => s.label);
      mergedItems.push({
        productId: item,
        name: name(item),
        quantity,
        from,
        rule,
        note: noteFor(rule, inSides),
      });
      continue;
    }
    const removers = inSides.filter((s) => s.removed).map((s) => s.side);
    const via = removers.flatMap((s) =>
      ownRemovals(s)
        .filter((tag) => carts.some((c) => c.lines[tag]?.item === item) || provenance.item(tag) === item)
        .map((tag) => provenance.removed(tag, s.cart.removed[tag]!))
        .filter((v): v is string => v !== undefined),
    );
    removed.push({
      productId: item,
      name: name(item),
      removedIn: removers.map((s) => s.label),
      via: [...new Set(via)],
    });
  }
  const byName = <T extends { name: string }>(a: T, b: T): number => a.name.localeCompare(b.name);
  const sortedRemoved = removed.sort(byName);
  return {
    versions: sides.map((side, i) => versionView(side, facts, versions[i]!.lastModified, name, provenance)),
    merged: mergedItems.sort(byName),
    removed: sortedRemoved,
    rules: rulesApplied(cases.sort((a, b) => byName(a.case, b.case))),
    // Only what some version still holds live would a union bring back.
    unionWouldResurrect: sortedRemoved
      .filter((r) => carts.some((c) => cart.quantity(c, r.productId) > 0))
      .map((r) => r.name),
  };
}
