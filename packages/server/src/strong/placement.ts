/**
 * Where a strong key's consensus runs: its N primary replicas under the current ring (never
 * sloppy fallbacks), and whether a pending ring change moves its partition (then strong
 * operations on it wait until the change commits: docs/transactions.md, "Ring changes").
 */
import { type ClusterState, livePending, type NodeId, partitionOf, replicasOf } from '@tessera/core';

export interface Placement {
  readonly partition: number;
  readonly ringVersion: number;
  readonly replicas: readonly NodeId[];
  /** The ring version the pending change that moves this partition will produce, if any. */
  readonly movingTo?: number;
}

export function placementOf(state: ClusterState, key: string, n: number): Placement {
  const partition = partitionOf(state.ring.partitionCount, key);
  const replicas = replicasOf(state.ring, partition, n);
  const base = { partition, ringVersion: state.ring.version, replicas };
  const pending = livePending(state.pending, state.ring);
  if (pending === undefined) return base;
  const next = replicasOf(pending.next, partition, n);
  return sameNodes(next, replicas) ? base : { ...base, movingTo: pending.next.version };
}

/** The same nodes in the same order. */
export function sameNodes(a: readonly NodeId[], b: readonly NodeId[]): boolean {
  return a.length === b.length && a.every((node, i) => node === b[i]);
}

/** Votes needed among `replicas`. */
export function majorityOf(replicas: readonly NodeId[]): number {
  return Math.floor(replicas.length / 2) + 1;
}
