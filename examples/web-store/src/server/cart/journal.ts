/**
 * What this store process remembers about the changes it made to carts: for every cart line (a
 * tag of the cart CRDT), through which node it was added and through which node it was removed.
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
  removed?: JournalEntry;
}

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
    for (const tag of Object.keys(after.removed)) {
      if (before === undefined || !Object.hasOwn(before.removed, tag)) {
        const item = before?.lines[tag]?.item ?? entry.productId;
        tags.set(tag, { ...tags.get(tag), removed: { ...entry, productId: item } });
      }
    }
  }

  addedBy(cartId: string, tag: string): JournalEntry | undefined {
    return this.carts.get(cartId)?.get(tag)?.added;
  }

  removedBy(cartId: string, tag: string): JournalEntry | undefined {
    return this.carts.get(cartId)?.get(tag)?.removed;
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
