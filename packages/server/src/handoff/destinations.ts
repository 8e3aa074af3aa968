/**
 * Where a hint goes (paper 4.6, 4.9). A hint names the replica a fallback stood in for, but the
 * ring may have changed since: that node may have left, or be leaving. A hint goes to its target
 * while the target still replicates the key, and also to the replicas the key gains in a pending
 * ring change (as a write would, coordinator/transition.ts); once the target no longer replicates
 * the key, it goes to the key's current replicas instead. Handing it to a node that left after the
 * new replicas pulled its partitions would lose it.
 */
import { type NodeId, partitionOf, type Ring, replicasOf } from '@tessera/core';

export interface HintPlacement {
  readonly self: NodeId;
  readonly n: number;
  /** The current ring; undefined before this node knows one. */
  readonly ring: () => Ring | undefined;
  /** The next ring while a ring change is pending. */
  readonly nextRing: () => Ring | undefined;
}

/** The nodes a hint for `target` of `key` must reach; this node among them means its own store. */
export function hintDestinations(
  target: NodeId,
  key: string,
  placement: HintPlacement | undefined,
): NodeId[] {
  const ring = placement?.ring();
  if (placement === undefined || ring === undefined) return [target];
  const partition = partitionOf(ring.partitionCount, key);
  const current = replicasOf(ring, partition, placement.n);
  const next = placement.nextRing();
  const gained =
    next === undefined ? [] : replicasOf(next, partition, placement.n).filter((n) => !current.includes(n));
  const primary = current.includes(target) ? [target] : current;
  return [...new Set([...primary, ...gained])];
}
