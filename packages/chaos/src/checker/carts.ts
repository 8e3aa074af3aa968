/**
 * Carts with the cart resolver (an observed-remove set). Each add puts a unique item in a cart;
 * a remove removes an item whose add was acknowledged. An acknowledged add stays unless a remove
 * may have seen it; an item an acknowledged remove saw never comes back.
 */
import type { CompletedOp } from '../history.js';
import { ref } from './sets.js';
import type { CartReport, OpRef } from './types.js';

type CartOp = Extract<CompletedOp, { workload: 'cart' }>;

export function checkCarts(
  ops: readonly CompletedOp[],
  finals: ReadonlyMap<string, readonly string[]>,
): CartReport {
  const cartOps = ops.filter((op): op is CartOp => op.workload === 'cart');
  const present = new Map([...finals].map(([key, items]) => [key, new Set(items)]));
  const has = (key: string, item: string): boolean => present.get(key)?.has(item) ?? false;
  const slot = (key: string, item: string): string => `${key}\u0000${item}`;
  // A remove may have tombstoned the item unless it is known never to have seen it.
  const mayBeRemoved = new Set<string>();
  const added = new Set<string>();
  for (const op of cartOps) {
    if (op.f === 'add') added.add(slot(op.key, op.value));
    else if (!('seen' in op) || op.seen === undefined || op.seen.inSomeAttempt)
      mayBeRemoved.add(slot(op.key, op.value));
  }
  const lost: OpRef<string>[] = [];
  const resurrected: OpRef<string>[] = [];
  let addsAcknowledged = 0;
  let removesAcknowledged = 0;
  for (const op of cartOps) {
    if (op.status !== 'ok') continue;
    if (op.f === 'add') {
      addsAcknowledged++;
      if (!has(op.key, op.value) && !mayBeRemoved.has(slot(op.key, op.value))) lost.push(ref(op));
    } else {
      removesAcknowledged++;
      const sawIt = 'seen' in op && op.seen?.last === true;
      if (sawIt && has(op.key, op.value)) resurrected.push(ref(op));
    }
  }
  const phantom: CartReport['phantom'] = [];
  for (const [key, items] of present)
    for (const value of items) if (!added.has(slot(key, value))) phantom.push({ key, value });
  return { keys: finals.size, addsAcknowledged, removesAcknowledged, lost, resurrected, phantom };
}
