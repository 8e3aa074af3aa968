/**
 * The final value of each key from the replicas' local states, as a reader that merges every
 * replica's siblings with the workload's resolver would see it. When the replicas converged they
 * all hold the same siblings; when they did not, the merge is the most favourable reading (an add
 * on any replica counts as kept), and the key is reported as not converged.
 */
import { type Cart, cart } from '@tessera/client';
import type { FinalEvent, LwwValue } from '../history.js';
import type { ConvergenceReport } from './types.js';

export interface FinalValues {
  readonly set: Map<string, number[]>;
  readonly cart: Map<string, string[]>;
  readonly lww: Map<string, LwwValue[]>;
}

export function finalValues(finals: readonly FinalEvent[]): FinalValues {
  const out: FinalValues = { set: new Map(), cart: new Map(), lww: new Map() };
  for (const final of finals) {
    const siblings = Object.values(final.replicas).flatMap((s) => s ?? []);
    if (final.workload === 'set') {
      const elements = new Set(siblings.flatMap((s) => (Array.isArray(s) ? s : [])).filter(isNumber));
      out.set.set(
        final.key,
        [...elements].sort((a, b) => a - b),
      );
    } else if (final.workload === 'cart') {
      const carts = siblings.filter((s): s is Cart => cart.is(s));
      out.cart.set(
        final.key,
        cart.items(cart.merge(carts)).map((line) => line.item),
      );
    } else {
      const byId = new Map(siblings.filter(isLwwValue).map((v) => [v.id, v]));
      out.lww.set(final.key, [...byId.values()]);
    }
  }
  return out;
}

export function checkConvergence(finals: readonly FinalEvent[], ringSettled: boolean): ConvergenceReport {
  const notConverged = finals.filter((f) => !f.converged).map((f) => f.key);
  const slowestMs = Math.max(0, ...finals.map((f) => f.convergedAfterMs ?? 0));
  return { keys: finals.length, notConverged, ringSettled, slowestMs };
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number';
}

function isLwwValue(value: unknown): value is LwwValue {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'string' &&
    typeof (value as { ts?: unknown }).ts === 'number'
  );
}
