/**
 * What each replica holds, compared (pure): every node's copy of a cart, its versions merged as
 * `resolvers.cart()` merges them, which nodes hold exactly the same versions, and what a node has
 * not received yet that another holds. The merge of every copy is what the nodes converge to once
 * read repair and anti-entropy have run, so "missing" is measured against it.
 */
import { type Cart, canonical, cart } from '@tessera/client';
import type { ReplicaCopy, ReplicaItem } from '../../shared/api.js';
import type { LocalCopy } from '../cluster/local-read.js';

interface Held {
  readonly copy: LocalCopy;
  readonly carts: readonly Cart[];
  readonly merged: Cart;
  /** The versions, as one comparable string. */
  readonly versionsKey: string;
}

function held(copy: LocalCopy): Held | undefined {
  if (copy.siblings === undefined) return undefined;
  const carts = copy.siblings.map((s) => s.value).filter((v): v is Cart => cart.is(v));
  return {
    copy,
    carts,
    merged: cart.merge(carts),
    versionsKey: carts
      .map((c) => canonical(c))
      .sort()
      .join('\n'),
  };
}

const quantities = (c: Cart): Map<string, number> => new Map(cart.items(c).map((i) => [i.item, i.quantity]));

/** What `full` has that `mine` has not, in words. */
function missingWords(mine: Cart, full: Cart, name: (id: string) => string): string[] {
  const have = quantities(mine);
  const want = quantities(full);
  const words: string[] = [];
  for (const [id, q] of want) {
    const h = have.get(id);
    if (h === undefined) words.push(`the ${name(id)}`);
    else if (h !== q) words.push(`${name(id)} ×${q}`);
  }
  for (const id of have.keys()) if (!want.has(id)) words.push(`the removal of the ${name(id)}`);
  return words.length === 0 ? ['a change made elsewhere'] : words;
}

export function compareReplicas(copies: readonly LocalCopy[], name: (id: string) => string): ReplicaCopy[] {
  const all = copies.map(held);
  const answered = all.filter((x): x is Held => x !== undefined);
  const full = cart.merge(answered.flatMap((x) => x.carts));
  const fullKey = canonical(full);
  const sameCart = (x: Held): boolean => canonical(x.merged) === fullKey;
  const fewest = Math.min(...answered.filter(sameCart).map((x) => x.carts.length));
  const groups: string[] = [];
  return copies.map((copy, i) => {
    const x = all[i];
    const readAt = new Date(copy.readAt).toISOString();
    if (x === undefined) {
      return {
        nodeId: copy.nodeId,
        state: 'no-answer',
        readAt,
        versions: 0,
        items: [],
        lastModified: null,
        group: null,
        complete: false,
        mergePending: false,
        missing: [],
      };
    }
    if (!groups.includes(x.versionsKey)) groups.push(x.versionsKey);
    const items: ReplicaItem[] = cart
      .items(x.merged)
      .map(({ item, quantity }) => ({ productId: item, name: name(item), quantity }));
    const same = sameCart(x);
    const mergePending = same && x.carts.length > fewest;
    const times = (copy.siblings ?? []).map((s) => s.lastModified).filter((t) => t !== '');
    return {
      nodeId: copy.nodeId,
      state: x.carts.length === 0 ? 'no-copy' : 'copy',
      readAt,
      versions: x.carts.length,
      items,
      lastModified: times.length === 0 ? null : times.sort().at(-1)!,
      group: groups.indexOf(x.versionsKey),
      complete: same && !mergePending,
      mergePending,
      missing: same ? [] : missingWords(x.merged, full, name),
    };
  });
}
