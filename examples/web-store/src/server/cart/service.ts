/**
 * Carts in Tessera: one key per cart (`cart:<id>`) holding the client SDK's cart CRDT, merged with
 * `resolvers.cart()`. A read never writes: when it finds several versions (siblings) the page
 * shows them next to their merge, and the next write (any change, or "keep the merge") carries
 * the read's context and so replaces exactly those versions with one.
 */
import { createHash } from 'node:crypto';
import { type Cart, type CartUpdater, cart, type GetResult, type Resolver, resolvers } from '@tessera/client';
import type { CartLineView, CartView, PastReconciliation, ServedBy } from '../../shared/api.js';
import type { Catalog } from '../catalog/catalog.js';
import { merge, type NodeSession, type StoreAccess, type UpdateOutcome } from '../cluster/access.js';
import type { StoryBook } from '../story/book.js';
import { BoundedMap } from '../util/bounded-map.js';
import type { KeyLock } from '../util/key-lock.js';
import { explain, type Provenance } from './explain.js';
import type { Journal, JournalEntry } from './journal.js';
import { withStored } from './stored.js';

export const cartKey = (cartId: string): string => `cart:${cartId}`;

export type CartChange =
  | { readonly kind: 'add'; readonly productId: string; readonly quantity: number }
  | { readonly kind: 'set'; readonly productId: string; readonly quantity: number }
  | { readonly kind: 'remove'; readonly productId: string }
  | { readonly kind: 'save' };

export interface CartServiceDeps {
  readonly access: StoreAccess;
  readonly catalog: Catalog;
  readonly journal: Journal;
  readonly locks: KeyLock;
  readonly story: StoryBook;
}

/** Who asked: the node the tab chose ("auto" or an id) and the tab's id, when it sent one. */
export interface Asker {
  readonly node: string;
  readonly tab: string | undefined;
}

/** The sibling carts of a read (values that are not carts, written by someone else, are left out). */
export function cartVersions(read: GetResult<Cart>) {
  return read.versions.filter((v) => cart.is(v.value));
}

const cartResolver = resolvers.cart();

/** resolvers.cart(), leaving out any sibling that is not a cart (someone else wrote the key). */
export const resolveCart: Resolver<Cart> = (siblings) => {
  const carts = siblings.filter((s) => cart.is(s));
  return carts.length === 0 ? cart.empty() : cartResolver(carts, []);
};

export class CartService {
  readonly resolver = resolveCart;
  private readonly history = new BoundedMap<string, PastReconciliation>(2_000);

  constructor(private readonly deps: CartServiceDeps) {}

  async view(cartId: string, asker: Asker): Promise<CartView> {
    const served = await this.deps.access.run(asker.node, (s) => s.get<Cart>(cartKey(cartId)));
    return this.render(cartId, served.value, served.servedBy, asker.tab);
  }

  async change(cartId: string, asker: Asker, change: CartChange): Promise<CartView> {
    // Made once, outside the retry loops: its tag stays the same if a write is retried elsewhere.
    const updater = updaterFor(change);
    return this.deps.locks.run(cartKey(cartId), async () => {
      const served = await this.deps.access.run(asker.node, async (session) => {
        const outcome = await session.update(cartKey(cartId), this.resolver, (c) =>
          updater(cart.is(c) ? c : undefined),
        );
        return { outcome, now: await session.get<Cart>(cartKey(cartId)) };
      });
      const { outcome, now } = served.value;
      this.remember(cartId, change, outcome, served.servedBy, asker.tab);
      const view = this.render(cartId, now, served.servedBy, asker.tab);
      return withStored(view, outcome, served.servedBy.nodeId);
    });
  }

  /** Within a checkout: the current cart on the session's node. */
  async read(
    session: NodeSession,
    cartId: string,
  ): Promise<{ read: GetResult<Cart>; value: Cart | undefined }> {
    const read = await session.get<Cart>(cartKey(cartId));
    const versions = cartVersions(read);
    const value = versions.length === 0 ? undefined : cart.merge(versions.map((v) => v.value));
    return { read, value };
  }

  /** Records what a write did: provenance, the last merge, and the cart's story. */
  remember(
    cartId: string,
    event: CartChange | { readonly kind: 'checkout' },
    outcome: UpdateOutcome<Cart>,
    servedBy: ServedBy,
    tab: string | undefined,
  ): void {
    if (!outcome.wrote || outcome.after === undefined) return;
    const productId = 'productId' in event ? event.productId : '';
    if (event.kind !== 'save') {
      const entry: JournalEntry = { op: event.kind, productId, via: servedBy.nodeId, at: Date.now() };
      this.deps.journal.record(cartId, outcome.before, outcome.after, entry);
    }
    const op = event.kind === 'set' && event.quantity === 0 ? 'remove' : event.kind;
    this.deps.story.wrote(cartId, tab, servedBy, op, productId);
    this.rememberResolution(cartId, outcome.read, event.kind, servedBy.nodeId);
  }

  private rememberResolution(cartId: string, read: GetResult<Cart>, by: string, via: string): void {
    const versions = cartVersions(read);
    if (versions.length < 2) return;
    const past = explain(versions, (id) => this.deps.catalog.name(id), this.provenance(cartId));
    this.history.set(cartId, { ...past, resolvedAt: new Date().toISOString(), resolvedBy: by, via });
    this.deps.story.resolved(cartId, versions.length);
  }

  render(cartId: string, read: GetResult<Cart>, servedBy: ServedBy, tab: string | undefined): CartView {
    const versions = cartVersions(read);
    const merged = merge({ ...read, siblings: versions.map((v) => v.value), versions }, this.resolver);
    const items: CartLineView[] = cart.items(merged).map(({ item, quantity }) => {
      const product = this.deps.catalog.get(item);
      const priceCents = product?.priceCents ?? 0;
      return {
        productId: item,
        name: product?.name ?? item,
        image: product?.image ?? '',
        quantity,
        priceCents,
        subtotalCents: priceCents * quantity,
      };
    });
    this.deps.story.seen(cartId, tab, servedBy, {
      items: items.map((i) => i.name),
      versions: versions.length,
    });
    const base = {
      cartId,
      items,
      count: items.reduce((n, i) => n + i.quantity, 0),
      totalCents: items.reduce((n, i) => n + i.subtotalCents, 0),
      versions: versions.length,
      revision: revisionOf(merged),
      story: this.deps.story.view(cartId, tab),
      servedBy,
    };
    if (versions.length > 1) {
      const name = (id: string): string => this.deps.catalog.name(id);
      return { ...base, reconciliation: explain(versions, name, this.provenance(cartId)) };
    }
    const last = this.history.get(cartId);
    return last === undefined ? base : { ...base, lastReconciliation: last };
  }

  private provenance(cartId: string): Provenance {
    const { journal } = this.deps;
    return {
      added: (tag) => journal.addedBy(cartId, tag)?.via,
      removed: (tag, at) => journal.removedBy(cartId, tag, at)?.via,
      item: (tag) => journal.addedBy(cartId, tag)?.productId ?? journal.removedBy(cartId, tag)?.productId,
    };
  }
}

/** A short name for the cart's live lines: it changes with every add, set and removal. */
function revisionOf(c: Cart | undefined): string {
  const tags = Object.keys(c?.lines ?? {}).sort();
  return createHash('sha256').update(tags.join(',')).digest('base64url').slice(0, 12);
}

function updaterFor(change: CartChange): (current: Cart | undefined) => Cart | undefined {
  let op: CartUpdater;
  switch (change.kind) {
    case 'add':
      op = cart.add(change.productId, change.quantity);
      break;
    case 'set':
      op = cart.setQuantity(change.productId, change.quantity);
      break;
    case 'remove':
      op = cart.remove(change.productId);
      break;
    case 'save':
      // Writing the merge back as it is: worth a write only when there are versions to replace.
      return (current) => current;
  }
  return (current) => op(current);
}
