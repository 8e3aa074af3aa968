/**
 * What the page says after a checkout, for the tab that pressed the button and for another tab of
 * the same cart whose lines an order took, and when a checkout was refused. Pure.
 */
import type { CartStory, CheckoutResult, Order, Shortage, StoryCheckout } from '../../shared/api.js';

export interface CheckoutNote {
  readonly order: Order;
  /** placed: one of this tab's presses placed it; already: it existed before this tab pressed. */
  readonly kind: 'placed' | 'already';
  /** How many answers this tab got for the order (a double click sends two presses). */
  readonly presses: number;
  /** For "already": whether another tab placed it. */
  readonly elsewhere: boolean;
}

/** The note after an answer to a press: a replay of an order this tab just placed keeps the thank-you. */
export function noteAfter(
  previous: CheckoutNote | undefined,
  result: CheckoutResult,
  story: CartStory | undefined,
): CheckoutNote {
  const same = previous !== undefined && previous.order.id === result.order.id;
  const placed = !result.replayed || (same && previous.kind === 'placed');
  const elsewhere = story?.checkouts.some((c) => c.orderId === result.order.id && !c.you) ?? false;
  return {
    order: result.order,
    kind: placed ? 'placed' : 'already',
    presses: same ? previous.presses + 1 : 1,
    elsewhere: !placed && elsewhere,
  };
}

/** Orders placed from another tab that this tab has not told about yet, oldest first. */
export function ordersFromElsewhere(
  story: CartStory | undefined,
  known: ReadonlySet<string> | undefined,
): StoryCheckout[] {
  if (story === undefined || known === undefined) return [];
  return story.checkouts.filter((c) => !c.you && !known.has(c.orderId));
}

/** Every order the story names, as known: what was there when the tab opened is not news. */
export function knownAfter(
  known: ReadonlySet<string> | undefined,
  story: CartStory | undefined,
  markAll: boolean,
): ReadonlySet<string> | undefined {
  if (story === undefined) return known;
  if (known !== undefined && !markAll) {
    const mine = story.checkouts.filter((c) => c.you && !known.has(c.orderId));
    return mine.length === 0 ? known : new Set([...known, ...mine.map((c) => c.orderId)]);
  }
  return new Set([...(known ?? []), ...story.checkouts.map((c) => c.orderId)]);
}

/** A checkout the store refused without ordering anything: the cart is as it was. */
export interface CheckoutRefusal {
  /** SOLD_OUT, CHECKOUT_CONFLICT or STRONG_UNAVAILABLE. */
  readonly code: string;
  /** The store's sentence ("Sorry, the last Desk lamp was just bought — 0 left. …"). */
  readonly message: string;
  /** For SOLD_OUT: the items the stock cannot cover. */
  readonly shortages: readonly Shortage[];
}

/** The refusals that stay under the button (others are passing errors, shown as toasts). */
const REFUSALS = new Set(['SOLD_OUT', 'CHECKOUT_CONFLICT', 'STRONG_UNAVAILABLE']);

export function refusalOf(code: string, message: string, details: unknown): CheckoutRefusal | undefined {
  if (!REFUSALS.has(code)) return undefined;
  const listed =
    typeof details === 'object' && details !== null
      ? (details as { shortages?: unknown }).shortages
      : undefined;
  return { code, message, shortages: Array.isArray(listed) ? (listed as Shortage[]) : [] };
}
