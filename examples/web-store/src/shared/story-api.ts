/**
 * What a shared cart knows about its own story, for the guide: the tabs that have it open and the
 * nodes they talk to, which nodes wrote to it and when, its orders, and the steps of the paper's
 * shopping-cart story it went through. Kept by the store process, shared by every tab.
 */

export type StepId = 'two-items' | 'two-tabs' | 'split' | 'both-sides' | 'merged';

export interface StoryStep {
  readonly id: StepId;
  /** When the step was first done (ISO time); a done step stays done. */
  readonly doneAt: string | null;
  /** What did it, or while not done, how far it got ("" when nothing yet). */
  readonly detail: string;
}

/** A tab that has the cart open (it asked for it in the last few seconds). */
export interface StoryTab {
  /** The node it is pinned to, or "auto". */
  readonly node: string;
  /** The node that served its last request. */
  readonly servedBy: string;
  /** The tab that asked for this view. */
  readonly you: boolean;
}

export interface StoryWrite {
  readonly at: string;
  /** The node the write went through. */
  readonly node: string;
  readonly op: 'add' | 'set' | 'remove' | 'save' | 'checkout';
  readonly productId: string;
  /** The node wrote its own copy alone (no quorum). */
  readonly degraded: boolean;
  readonly you: boolean;
}

export interface StoryCheckout {
  readonly orderId: string;
  readonly at: string;
  readonly node: string;
  readonly items: number;
  readonly totalCents: number;
  /** Placed by the tab that asked for this view. */
  readonly you: boolean;
}

export interface CartStory {
  readonly tabs: readonly StoryTab[];
  /** The five steps, in order. */
  readonly steps: readonly StoryStep[];
  /** The most recent writes, newest last. */
  readonly writes: readonly StoryWrite[];
  /** The most recent orders placed from this cart, newest last. */
  readonly checkouts: readonly StoryCheckout[];
}
