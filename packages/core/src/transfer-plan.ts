/**
 * What moves when the ring changes (paper 4.9): for every partition, the nodes that become one of
 * its N replicas must receive its data from a node that already is one. A node that stops being a
 * replica keeps its copy until the new ring is in force.
 */
import type { NodeId } from './clock.js';
import { preferenceList, type Ring } from './ring.js';

export interface Transfer {
  readonly partition: number;
  /** The new replica that must receive the partition. */
  readonly to: NodeId;
  /** Current replicas that hold the partition, the preferred source first. */
  readonly sources: readonly NodeId[];
}

export interface TransferPlan {
  readonly transfers: Transfer[];
  /** Per partition, replicas of `from` that are no replica in `to`: they may drop it once `to` is in force. */
  readonly retired: Map<number, NodeId[]>;
}

export function replicasOf(ring: Ring, partition: number, n: number): NodeId[] {
  return preferenceList(ring, partition).slice(0, n);
}

/**
 * The transfers that take the cluster from `from` to `to`. Sources exclude `unavailable` nodes
 * (a removed, dead node); a transfer with no source left is listed with an empty `sources` and
 * can only be completed by anti-entropy once a source exists.
 */
export function planTransfers(
  from: Ring,
  to: Ring,
  n: number,
  unavailable: ReadonlySet<NodeId> = new Set(),
): TransferPlan {
  const transfers: Transfer[] = [];
  const retired = new Map<number, NodeId[]>();
  for (let p = 0; p < to.partitionCount; p++) {
    const before = replicasOf(from, p, n);
    const after = replicasOf(to, p, n);
    const leaving = before.filter((node) => !after.includes(node));
    if (leaving.length > 0) retired.set(p, leaving);
    const staying = before.filter((node) => after.includes(node));
    const sources = [...leaving, ...staying].filter((node) => !unavailable.has(node));
    for (const node of after) {
      if (!before.includes(node)) transfers.push({ partition: p, to: node, sources });
    }
  }
  return { transfers, retired };
}
