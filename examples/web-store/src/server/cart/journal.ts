/**
 * What this store process remembers about the changes it made to carts: for every cart line (a
 * tag of the cart CRDT), through which node it was added and through which node it was removed
 * (by the removal's time: two versions may each have removed the same line on their own).
 * Only for showing where the changes in each version came from; nothing depends on it, and after
 * a restart of the store the reconciliation view simply names no nodes for older changes.
 */
import type { Cart } from '@tessera/client';
import { BoundedMap } from '../util/bounded-map.js';

export interface JournalEntry {
  readonly op: 'add' | 'set' | 'remove' | 'checkout';
  readonly productId: string;
  readonly via: string;
  readonly at: number;
}

interface TagHistory {
  added?: JournalEntry;
  /** By the tombstone's time. */
  removed?: ReadonlyMap<number, JournalEntry>;
}

const REMOVALS_PER_TAG_MAX = 8;

const CARTS_MAX = 2_000;
const TAGS_PER_CART_MAX = 2_000;

export class Journal {
  private readonly carts = new BoundedMap<string, BoundedMap<string, TagHistory>>(CARTS_MAX);

  /** Records the lines `after` has that `before` had not, and the tags it tombstoned. */
  record(cartId: string, before: Cart | undefined, after: Cart, entry: JournalEntry): void {
    const tags = this.tags(cartId);
    for (const [tag, line] of Object.entries(after.lines)) {
      if (before === undefined || !Object.hasOwn(before.lines, tag)) {
        tags.set(tag, { ...tags.get(tag), added: { ...entry, productId: line.item } });
      }
    }
    for (const [tag, at] of Object.entries(after.removed)) {
      if (before === undefined || !Object.hasOwn(before.removed, tag)) {
        const item = before?.lines[tag]?.item ?? entry.productId;
        const history = tags.get(tag);
        const removed = [...(history?.removed ?? new Map<number, JournalEntry>())].slice(
          1 - REMOVALS_PER_TAG_MAX,
        );
        tags.set(tag, { ...history, removed: new Map([...removed, [at, { ...entry, productId: item }]]) });
      }
    }
  }

  addedBy(cartId: string, tag: string): JournalEntry | undefined {
    return this.carts.get(cartId)?.get(tag)?.added;
  }

  /** The removal of a line whose tombstone has time `at`; without `at`, the latest one. */
  removedBy(cartId: string, tag: string, at?: number): JournalEntry | undefined {
    const removed = this.carts.get(cartId)?.get(tag)?.removed;
    if (removed === undefined) return undefined;
    return at === undefined ? [...removed.values()].at(-1) : removed.get(at);
  }

  private tags(cartId: string): BoundedMap<string, TagHistory> {
    let tags = this.carts.get(cartId);
    if (tags === undefined) {
      tags = new BoundedMap(TAGS_PER_CART_MAX);
      this.carts.set(cartId, tags);
    }
    return tags;
  }
}
