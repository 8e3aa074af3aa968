/** The checker: reads a history and says whether the run kept every promise (see types.ts). */
import { completedOps, type FinalEvent, type HistoryEvent } from '../history.js';
import { checkCarts } from './carts.js';
import { checkConvergence, finalValues } from './finals.js';
import { checkLww } from './lww.js';
import { checkSets } from './sets.js';
import type { CheckReport } from './types.js';

export type * from './types.js';

export function check(events: readonly HistoryEvent[]): CheckReport {
  const ops = completedOps(events);
  const finals = events.filter((e): e is FinalEvent => e.kind === 'final');
  const values = finalValues(finals);
  const set = checkSets(ops, values.set);
  const cart = checkCarts(ops, values.cart);
  const lww = checkLww(ops, values.lww);
  const unsettled = events.some((e) => e.kind === 'phase' && e.phase === 'unsettled');
  const convergence = checkConvergence(finals, !unsettled);
  const valid =
    set.lost.length + set.phantom.length === 0 &&
    cart.lost.length + cart.resurrected.length + cart.phantom.length === 0 &&
    lww.lost.length + lww.resurrected.length + lww.phantom.length === 0 &&
    convergence.notConverged.length === 0 &&
    convergence.ringSettled;
  const count = (status: string): number => ops.filter((op) => op.status === status).length;
  return {
    valid,
    ops: { total: ops.length, ok: count('ok'), fail: count('fail'), info: count('info') },
    set,
    cart,
    lww,
    convergence,
  };
}
