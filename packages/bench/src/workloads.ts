/**
 * YCSB-style workloads. A read is one GET; a read-modify-write (rmw) is a GET followed by a PUT
 * that carries the read's context (so it replaces exactly what it read); an insert is a PUT of a
 * fresh key without context.
 */
export type WorkloadName = 'A' | 'B' | 'C' | 'W';
export type OpKind = 'read' | 'rmw' | 'insert';

export interface Workload {
  readonly name: WorkloadName;
  readonly description: string;
  /** Shares of each operation kind; they add up to 1. */
  readonly mix: Readonly<Record<OpKind, number>>;
}

export const WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  A: { name: 'A', description: '50% read, 50% read-modify-write', mix: { read: 0.5, rmw: 0.5, insert: 0 } },
  B: { name: 'B', description: '95% read, 5% read-modify-write', mix: { read: 0.95, rmw: 0.05, insert: 0 } },
  C: { name: 'C', description: '100% read', mix: { read: 1, rmw: 0, insert: 0 } },
  W: { name: 'W', description: '100% writes of fresh keys', mix: { read: 0, rmw: 0, insert: 1 } },
};

export const OP_KINDS: readonly OpKind[] = ['read', 'rmw', 'insert'];

export function isWorkloadName(value: string): value is WorkloadName {
  return Object.hasOwn(WORKLOADS, value);
}

/** Whether the workload reads keys that a load phase must have written first. */
export function needsLoadedKeys(workload: Workload): boolean {
  return workload.mix.read > 0 || workload.mix.rmw > 0;
}

/** The operation for a uniform draw u in [0, 1). */
export function chooseOp(workload: Workload, u: number): OpKind {
  let edge = 0;
  for (const kind of OP_KINDS) {
    edge += workload.mix[kind];
    if (u < edge) return kind;
  }
  // Rounding can leave u just above the last edge: take the last kind with a share.
  return [...OP_KINDS].reverse().find((kind) => workload.mix[kind] > 0) ?? 'read';
}
