/** Faults of the links between nodes: partitions (both ways or one way), stalled, slow and lossy links. */
import { between, pick, type Rng, shuffled } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { Started } from './nemesis-types.js';

type Cut = [from: string, to: string];

/** Cuts every listed directed link; `end` heals them. */
export function cutLinks(cluster: ChaosCluster, cuts: readonly Cut[]): () => Promise<void> {
  for (const [from, to] of cuts) cluster.setLink(from, to, { kind: 'partition' });
  return async () => {
    for (const [from, to] of cuts) cluster.setLink(from, to, { kind: 'ok' });
  };
}

/** The directed links from every node of `a` to every node of `b`, and back unless one way. */
export function linksAcross(a: readonly string[], b: readonly string[], bothWays: boolean): Cut[] {
  const cuts: Cut[] = [];
  for (const x of a) for (const y of b) cuts.push([x, y], ...(bothWays ? [[y, x] as Cut] : []));
  return cuts;
}

/** Splits the members in two; blocks A->B, and B->A too unless one-way. */
export function partition(
  cluster: ChaosCluster,
  random: Rng,
  members: readonly string[],
  bothWays: boolean,
): Started {
  const nodes = shuffled(random, [...members]);
  const cut = between(random, 1, Math.floor(nodes.length / 2));
  const a = nodes.slice(0, cut).sort();
  const b = nodes.slice(cut).sort();
  return {
    detail: `${a.join(',')} ${bothWays ? '|' : '->x'} ${b.join(',')}`,
    end: cutLinks(cluster, linksAcross(a, b, bothWays)),
  };
}

/** One node's links, both ways, stop moving bytes (held, not lost) until healed. */
export function stall(cluster: ChaosCluster, random: Rng, members: readonly string[]): Started {
  const node = pick(random, [...members]);
  const others = cluster.ids.filter((id) => id !== node);
  for (const other of others) {
    cluster.setLink(node, other, { kind: 'stall' });
    cluster.setLink(other, node, { kind: 'stall' });
  }
  return {
    detail: node,
    nodes: [node],
    end: async () => {
      for (const other of others) {
        cluster.setLink(node, other, { kind: 'ok' });
        cluster.setLink(other, node, { kind: 'ok' });
      }
    },
  };
}

/** About half the links between members get `fault`. */
export function someLinks(
  cluster: ChaosCluster,
  random: Rng,
  members: readonly string[],
  fault: () => Parameters<ChaosCluster['setLink']>[2],
  what: string,
): Started {
  const chosen: Cut[] = [];
  for (const from of members)
    for (const to of members) if (from !== to && random() < 0.5) chosen.push([from, to]);
  for (const [from, to] of chosen) cluster.setLink(from, to, fault());
  return {
    detail: `${chosen.length} links ${what}`,
    end: async () => {
      for (const [from, to] of chosen) cluster.setLink(from, to, { kind: 'ok' });
    },
  };
}
