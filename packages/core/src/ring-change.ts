/**
 * A ring change in progress (paper 4.9) and the history of committed changes (paper 4.8.1).
 * While a change is pending, reads use the current ring and writes go to the replicas of both
 * rings; every node that gains a partition pulls it, then reports done; once all are done one
 * node commits the next ring. Both records merge as semilattices: commutative, associative and
 * idempotent, so gossip converges whatever order nodes hear things in.
 */
import type { NodeId } from './clock.js';
import type { Ring } from './ring.js';

export type ChangeKind = 'join' | 'leave' | 'remove';

export interface PendingChange {
  /** The ring in force once the change commits; its version is the current one plus one. */
  readonly next: Ring;
  readonly kind: ChangeKind;
  /** The node joining, leaving or removed. */
  readonly nodeId: NodeId;
  /** Receivers that hold every partition they gain; sorted. */
  readonly done: readonly NodeId[];
}

export interface ChangeRecord {
  /** The ring version the change produced. */
  readonly ringVersion: number;
  readonly kind: ChangeKind;
  readonly nodeId: NodeId;
  readonly atMs: number;
}

export const HISTORY_MAX = 100;

function identity(p: PendingChange): string {
  return `${p.next.version}|${p.kind}|${p.nodeId}|${p.next.owners.join(',')}`;
}

/** The pending change of two views: the later one; the same change with both `done` lists joined. */
export function mergePending(
  a: PendingChange | undefined,
  b: PendingChange | undefined,
): PendingChange | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.next.version !== b.next.version) return a.next.version > b.next.version ? a : b;
  const ia = identity(a);
  const ib = identity(b);
  if (ia !== ib) return ia < ib ? a : b;
  return { ...a, done: [...new Set([...a.done, ...b.done])].sort() };
}

/** A pending change is over once the ring has reached its version (committed or superseded). */
export function livePending(pending: PendingChange | undefined, ring: Ring): PendingChange | undefined {
  return pending !== undefined && pending.next.version > ring.version ? pending : undefined;
}

function recordKey(r: ChangeRecord): string {
  return `${String(r.ringVersion).padStart(12, '0')}|${r.kind}|${r.nodeId}`;
}

/** Union of two histories, one record per change (the earliest time), the latest HISTORY_MAX kept. */
export function mergeHistory(
  a: readonly ChangeRecord[] = [],
  b: readonly ChangeRecord[] = [],
): ChangeRecord[] {
  const byKey = new Map<string, ChangeRecord>();
  for (const r of [...a, ...b]) {
    const k = recordKey(r);
    const present = byKey.get(k);
    if (present === undefined || r.atMs < present.atMs) byKey.set(k, r);
  }
  const sorted = [...byKey.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return sorted.slice(Math.max(0, sorted.length - HISTORY_MAX)).map(([, r]) => r);
}

/** `history` with `record` added (and the oldest dropped beyond HISTORY_MAX). */
export function withRecord(history: readonly ChangeRecord[] = [], record: ChangeRecord): ChangeRecord[] {
  return mergeHistory(history, [record]);
}
