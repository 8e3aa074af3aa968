/** The checker: reads a history and says whether the run kept every promise (see types.ts). */
import { completedOps, type FinalEvent, type HistoryEvent } from '../history.js';
import { checkBank } from './bank.js';
import { checkCarts } from './carts.js';
import { chargeFaults, faultWindows, type Violation, withoutWeakWritesAtRisk } from './faults.js';
import { checkConvergence, finalValues } from './finals.js';
import { checkLww } from './lww.js';
import { checkRegisters } from './registers.js';
import { checkSets } from './sets.js';
import type { BankReport, CartReport, CheckReport, LwwReport, RegisterReport, SetReport } from './types.js';

export type * from './types.js';

export function check(events: readonly HistoryEvent[]): CheckReport {
  const completed = completedOps(events);
  const windows = faultWindows(events);
  const finals = events.filter((e): e is FinalEvent => e.kind === 'final');
  const { ops, downgraded } = withoutWeakWritesAtRisk(completed, windows, finals);
  const values = finalValues(finals);
  const set = checkSets(ops, values.set);
  const cart = checkCarts(ops, values.cart);
  const lww = checkLww(ops, values.lww);
  const unsettled = events.some((e) => e.kind === 'phase' && e.phase === 'unsettled');
  const convergence = checkConvergence(finals, !unsettled);
  // The strong checks after the heal apply once the run got there (strong-final.ts).
  const healedAtMs = events.find((e) => e.kind === 'phase' && e.phase === 'strong-final')?.atMs;
  const register = checkRegisters(completed, { healed: healedAtMs !== undefined });
  const bank = checkBank(completed, healedAtMs === undefined ? {} : { healedAtMs });
  const valid =
    set.lost.length + set.phantom.length === 0 &&
    cart.lost.length + cart.resurrected.length + cart.phantom.length === 0 &&
    lww.lost.length + lww.resurrected.length + lww.phantom.length === 0 &&
    convergence.notConverged.length === 0 &&
    convergence.ringSettled &&
    strongValid(register, bank);
  const count = (status: string): number => completed.filter((op) => op.status === status).length;
  return {
    valid,
    ops: { total: completed.length, ok: count('ok'), fail: count('fail'), info: count('info') },
    set,
    cart,
    lww,
    register,
    bank,
    convergence,
    byFault: chargeFaults(windows, violations(set, cart, lww), ops, finals),
    weakAtRisk: downgraded,
  };
}

/** Every strong register linearizable and readable after the heal; the bank's promises kept, nothing left pending. */
export function strongValid(register: RegisterReport, bank: BankReport): boolean {
  const { afterHeal } = bank;
  return (
    register.notLinearizable.length + register.inconclusive.length + register.unreadableAfterHeal.length ===
      0 &&
    bank.violations.length === 0 &&
    afterHeal.unreadable.length + afterHeal.unresolved.length === 0 &&
    afterHeal.conditionCheckCommitted &&
    afterHeal.finalSnapshot
  );
}

/** Every lost promise and every resurrection, with the key and the start of the op at fault. */
function violations(set: SetReport, cart: CartReport, lww: LwwReport): Violation[] {
  const lost = (r: { key: string; invokeMs: number }): Violation => ({
    key: r.key,
    kind: 'lost',
    fromMs: r.invokeMs,
  });
  return [
    ...set.lost.map(lost),
    ...cart.lost.map(lost),
    ...lww.lost.map(lost),
    ...cart.resurrected.map((r) => ({ key: r.key, kind: 'resurrected' as const, fromMs: r.invokeMs })),
    ...lww.resurrected.map((r) => ({ key: r.key, kind: 'resurrected' as const, fromMs: r.by.invokeMs })),
  ];
}

export {
  checkLinearizable,
  checkRegisterHistory,
  type LinearizabilityResult,
  type Model,
  type Operation,
  type RegisterInput,
  type RegisterOutput,
  type RegisterState,
  registerModel,
} from '@tessera/core';
