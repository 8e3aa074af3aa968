/**
 * Lines this tab just removed keep their place for a few seconds, as a "removed · undo" row of the
 * same height, so the next line's buttons do not slide under the pointer. Pure.
 */
import type { CartLineView, CartView } from '../../shared/api.js';

export const REMOVED_SHOWN_MS = 5_000;

export interface RemovedLine {
  readonly line: CartLineView;
  readonly until: number;
}

export function withRemoved(
  removed: readonly RemovedLine[],
  line: CartLineView,
  now: number,
): readonly RemovedLine[] {
  return [
    ...removed.filter((r) => r.line.productId !== line.productId),
    { line, until: now + REMOVED_SHOWN_MS },
  ];
}

/** The rows to show: the cart's lines and the recently removed ones, in the cart's order (by id). */
export type Row =
  | { readonly kind: 'line'; readonly line: CartLineView }
  | { readonly kind: 'removed'; readonly line: CartLineView };

export function rows(cart: CartView, removed: readonly RemovedLine[], now: number): Row[] {
  const live = new Set(cart.items.map((i) => i.productId));
  const ghosts = removed.filter((r) => r.until > now && !live.has(r.line.productId));
  const all: Row[] = [
    ...cart.items.map((line) => ({ kind: 'line' as const, line })),
    ...ghosts.map((r) => ({ kind: 'removed' as const, line: r.line })),
  ];
  return all.sort((a, b) =>
    a.line.productId < b.line.productId ? -1 : a.line.productId > b.line.productId ? 1 : 0,
  );
}

export function pruned(removed: readonly RemovedLine[], now: number): readonly RemovedLine[] {
  return removed.filter((r) => r.until > now);
}
