/** The receipt of a cart write, as the store's answer carries it (docs/web-store.md). */
import type { WriteReceipt } from '@tessera/client';
import type { CartView, WriteStored } from '../../shared/api.js';
import type { UpdateOutcome } from '../cluster/access.js';

export function storedView(receipt: WriteReceipt, via: string, at = new Date()): WriteStored {
  return {
    acks: receipt.acks.map((a) =>
      a.as === 'replica' ? { node: a.node, as: 'replica' } : { node: a.node, as: 'hint', for: a.for },
    ),
    replicas: receipt.replicas,
    n: receipt.n,
    w: receipt.w,
    via,
    at: at.toISOString(),
  };
}

/** The cart answer of a change: with how its write was stored when it wrote, as it was otherwise. */
export function withStored(
  view: CartView,
  outcome: Pick<UpdateOutcome<unknown>, 'wrote' | 'stored'>,
  via: string,
): CartView {
  if (!outcome.wrote) return view;
  return { ...view, stored: outcome.stored === undefined ? null : storedView(outcome.stored, via) };
}
