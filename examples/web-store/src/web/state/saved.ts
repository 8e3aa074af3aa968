/**
 * "Saved on n0 only": how this tab's last write of the cart was stored, in words (pure). A write
 * that a majority of the cart's replicas had stored when its node answered is plainly "saved" (the
 * receipt can under-count, so it never claims more); one with fewer, as on the minority side of a
 * split (W=1), names the nodes that have it, until the replicas view, read after the write, shows
 * every node holding it.
 */
import type { CartView, ReplicasView, WriteStored } from '../../shared/api.js';

export interface SavedWrite {
  readonly cartId: string;
  readonly stored: WriteStored;
  /** The replicas view, read after the write, has shown every node holding it. */
  readonly everywhere: boolean;
}

export interface SavedText {
  /** saved: a majority had it; minority: fewer; everywhere: a minority at first, every node since. */
  readonly kind: 'saved' | 'minority' | 'everywhere';
  readonly text: string;
  /** Why, in a sentence or two. */
  readonly detail: string;
}

export const majority = (n: number): number => Math.floor(n / 2) + 1;

const replicasOf = (s: WriteStored): string => `${s.replicas} of ${s.n} replicas`;

/** The receipt in words, as it was when the write's node answered. */
export function phrase(stored: WriteStored, split = true): SavedText {
  if (stored.replicas >= majority(stored.n)) {
    return {
      kind: 'saved',
      text: 'saved',
      detail: `${replicasOf(stored)} had stored it when ${stored.via} answered: a majority, so a quorum read finds it.`,
    };
  }
  const nodes = stored.acks.flatMap((a) => (a.as === 'replica' ? [a.node] : []));
  const hints = stored.acks.flatMap((a) => (a.as === 'hint' ? [`${a.node} holds a copy for ${a.for}`] : []));
  const where = nodes.length === 0 ? 'saved on no replica' : `saved on ${nodes.join(', ')} only`;
  const when = split ? 'when the split heals' : 'once they are back in touch';
  return {
    kind: 'minority',
    text: `${where} — ${replicasOf(stored)}${hints.length === 0 ? '' : ` (${hints.join(', ')})`}`,
    detail: `${
      stored.w < majority(stored.n)
        ? `${stored.via} could not reach a quorum of replicas, so it wrote with W=${stored.w}.`
        : `${stored.via} counted stand-ins' hints toward W=${stored.w} (a sloppy quorum).`
    } The other replicas get it ${when}: hinted handoff and anti-entropy.`,
  };
}

/** What the cart shows about this tab's last write: nothing without a receipt. */
export function savedText(saved: SavedWrite | undefined, split: boolean): SavedText | undefined {
  if (saved === undefined) return undefined;
  const said = phrase(saved.stored, split);
  if (said.kind !== 'minority' || !saved.everywhere) return said;
  return {
    kind: 'everywhere',
    text: `now on all ${saved.stored.n} replicas`,
    detail: `It was ${said.text} when ${saved.stored.via} answered; every node holds it now, as “What each replica holds” shows.`,
  };
}

/** After a cart answer: a write's receipt replaces the last one; a read changes nothing. */
export function savedAfter(saved: SavedWrite | undefined, cart: CartView): SavedWrite | undefined {
  if (cart.stored === undefined) return saved;
  if (cart.stored === null) return undefined;
  return { cartId: cart.cartId, stored: cart.stored, everywhere: false };
}

/** Whether every node's copy, read after the write, holds everything any node holds: the write too. */
export function heldEverywhere(saved: SavedWrite, replicas: ReplicasView): boolean {
  const at = Date.parse(saved.stored.at);
  return (
    replicas.cartId === saved.cartId &&
    replicas.nodes.length >= saved.stored.n &&
    replicas.nodes.every((c) => c.state === 'copy' && c.missing.length === 0 && Date.parse(c.readAt) >= at)
  );
}

/** After a replicas answer: a write once seen on every node stays so. */
export function savedSeen(saved: SavedWrite | undefined, replicas: ReplicasView): SavedWrite | undefined {
  if (saved === undefined || saved.everywhere || !heldEverywhere(saved, replicas)) return saved;
  return { ...saved, everywhere: true };
}
