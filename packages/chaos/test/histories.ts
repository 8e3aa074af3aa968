/** Builders of synthetic histories for the checker's tests. */
import type { Completion, FaultEvent, FinalEvent, HistoryEvent, OpEvent } from '../src/history.js';

export type OpFields = Omit<OpEvent, 'type' | 'atMs'>;

/** Ops in order, each completed before the next starts (op i runs from 2i to 2i+1 ms); 'open' never completes. */
export function historyOf(ops: { op: OpFields; status: Completion | 'open' }[]): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  ops.forEach(({ op, status }, i) => {
    events.push({ ...op, type: 'invoke', atMs: 2 * i } as OpEvent);
    if (status !== 'open') events.push({ ...op, type: status, atMs: 2 * i + 1 } as OpEvent);
  });
  return events;
}

/** One op from `fromMs` to `toMs`. */
export function timedOp(op: OpFields, status: Completion, fromMs: number, toMs: number): HistoryEvent[] {
  return [{ ...op, type: 'invoke', atMs: fromMs } as OpEvent, { ...op, type: status, atMs: toMs } as OpEvent];
}

/** A fault window from `fromMs` to `toMs` acting on `nodes` (absent: on links at large). */
export function faultWindow(
  id: number,
  fault: string,
  fromMs: number,
  toMs: number,
  nodes?: readonly string[],
): FaultEvent[] {
  const base = {
    kind: 'fault',
    id,
    fault,
    detail: fault,
    ...(nodes === undefined ? {} : { nodes }),
  } as const;
  return [
    { ...base, type: 'start', atMs: fromMs },
    { ...base, type: 'end', atMs: toMs },
  ];
}

/** The final read of a key: every replica (n0, n1, n2 unless given) holds `siblings`. */
export function final(
  workload: FinalEvent['workload'],
  key: string,
  siblings: unknown[],
  converged = true,
  replicas: readonly string[] = ['n0', 'n1', 'n2'],
): FinalEvent {
  const held = (i: number): unknown[] => (converged || i < replicas.length - 1 ? siblings : []);
  return {
    kind: 'final',
    atMs: 1_000_000,
    workload,
    key,
    replicas: Object.fromEntries(replicas.map((id, i) => [id, held(i)])),
    converged,
    ...(converged ? { convergedAfterMs: 10 } : {}),
  };
}
