/**
 * Settings every node of a cluster must share, recorded in the cluster state when the cluster is
 * created (docs/operations.md, "Cluster-wide settings"): replicas per key, the default quorums and
 * the durability floor. The partition count Q is fixed in the ring.
 */

/** How a node makes a write durable, weakest first (server config `durability`). */
export const DURABILITIES = ['process', 'fsync-one', 'fsync'] as const;
export type Durability = (typeof DURABILITIES)[number];

/** The floor of a cluster whose state predates the field: every durability is allowed. */
export const DURABILITY_FLOOR_DEFAULT: Durability = 'process';

export interface ClusterSettings {
  readonly n: number;
  readonly r: number;
  readonly w: number;
  /** The weakest `durability` a member may run with; absent in states from older nodes ('process'). */
  readonly durabilityFloor?: Durability;
}

/**
 * What a node's configuration says about the cluster-wide settings, as it starts or asks to join.
 * `partitions` and `durabilityFloor` are present only when given explicitly (otherwise the
 * cluster's apply); `durability` is the node's own, checked against the floor.
 */
export interface NodeSettings {
  readonly n: number;
  readonly r: number;
  readonly w: number;
  readonly partitions?: number;
  readonly durability?: Durability;
  readonly durabilityFloor?: Durability;
}

/** True when `a` is weaker than `b` (`process` < `fsync-one` < `fsync`). */
export function weakerDurability(a: Durability, b: Durability): boolean {
  return DURABILITIES.indexOf(a) < DURABILITIES.indexOf(b);
}

/**
 * What differs between a cluster's settings (and its ring's `partitionCount`) and a node's, as
 * `n=3 in the cluster, n=5 on this node`; undefined if nothing. A durability weaker than the
 * cluster's floor differs too.
 */
export function settingsMismatch(
  cluster: ClusterSettings,
  partitionCount: number,
  node: NodeSettings,
): string | undefined {
  const floor = cluster.durabilityFloor ?? DURABILITY_FLOOR_DEFAULT;
  const differ: string[] = [];
  for (const k of ['n', 'r', 'w'] as const) {
    if (cluster[k] !== node[k])
      differ.push(`${k}=${cluster[k]} in the cluster, ${k}=${node[k]} on this node`);
  }
  if (node.partitions !== undefined && node.partitions !== partitionCount) {
    differ.push(`partitions=${partitionCount} in the cluster, partitions=${node.partitions} on this node`);
  }
  if (node.durabilityFloor !== undefined && node.durabilityFloor !== floor) {
    differ.push(
      `durabilityFloor=${floor} in the cluster, durabilityFloor=${node.durabilityFloor} on this node`,
    );
  }
  if (node.durability !== undefined && weakerDurability(node.durability, floor)) {
    differ.push(
      `durabilityFloor=${floor} in the cluster, durability=${node.durability} on this node (weaker)`,
    );
  }
  return differ.length === 0 ? undefined : differ.join('; ');
}

/**
 * Settings are fixed at creation; two views that differ (nodes adopted their own before settings
 * were recorded, or an older node dropped the floor) agree on one, whatever the merge order: the
 * lower N, R, W, then the recorded and stronger floor.
 */
export function mergeSettings(a?: ClusterSettings, b?: ClusterSettings): ClusterSettings | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const ka = `${a.n},${a.r},${a.w}`;
  const kb = `${b.n},${b.r},${b.w}`;
  if (ka !== kb) return ka < kb ? a : b;
  return floorRank(a) >= floorRank(b) ? a : b;
}

/** True when two views record the same settings (a merge that changes them must be kept). */
export function sameSettings(a?: ClusterSettings, b?: ClusterSettings): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.n === b.n && a.r === b.r && a.w === b.w && a.durabilityFloor === b.durabilityFloor;
}

function floorRank(s: ClusterSettings): number {
  return s.durabilityFloor === undefined ? -1 : DURABILITIES.indexOf(s.durabilityFloor);
}
