/**
 * A partition's replicas: the first N distinct owners walking the ring from it, i.e. the first N
 * of core `preferenceList`, without walking the whole ring.
 */
import type { NodeId, Ring } from '@tessera/core';

export function replicasOf(ring: Ring, partition: number, n: number): NodeId[] {
  const out: NodeId[] = [];
  const q = ring.partitionCount;
  for (let i = 0; i < q && out.length < n; i++) {
    const owner = ring.owners[(partition + i) % q]!;
    if (!out.includes(owner)) out.push(owner);
  }
  return out;
}

/** The partitions `node` replicates, in order. */
export function partitionsReplicatedBy(ring: Ring, node: NodeId, n: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < ring.partitionCount; p++) if (replicasOf(ring, p, n).includes(node)) out.push(p);
  return out;
}
