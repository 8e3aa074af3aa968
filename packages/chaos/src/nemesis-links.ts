/** Faults of the links between nodes: partitions (both ways or one way), stalled, slow and lossy links. */
import { between, pick, type Rng, shuffled } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { Started } from './nemesis-types.js';
import { LINK_OK, type LinkFault } from './proxy.js';

type Cut = [from: string, to: string];

/** Sets `fault` on every listed directed link. */
async function setLinks(cluster: ChaosCluster, cuts: readonly Cut[], fault: () => LinkFault): Promise<void> {
  for (const [from, to] of cuts) await cluster.setLink(from, to, fault());
}

/** Cuts every listed directed link; the function it returns heals them. */
export async function cutLinks(cluster: ChaosCluster, cuts: readonly Cut[]): Promise<() => Promise<void>> {
  await setLinks(cluster, cuts, () => ({ kind: 'partition' }));
  return () => setLinks(cluster, cuts, () => LINK_OK);
}

/** The directed links from every node of `a` to every node of `b`, and back unless one way. */
export function linksAcross(a: readonly string[], b: readonly string[], bothWays: boolean): Cut[] {
  const cuts: Cut[] = [];
  for (const x of a) for (const y of b) cuts.push([x, y], ...(bothWays ? [[y, x] as Cut] : []));
  return cuts;
}

/** Splits the members in two; blocks A->B, and B->A too unless one-way. */
export async function partition(
  cluster: ChaosCluster,
  random: Rng,
  members: readonly string[],
  bothWays: boolean,
): Promise<Started> {
  const nodes = shuffled(random, [...members]);
  const cut = between(random, 1, Math.floor(nodes.length / 2));
  const a = nodes.slice(0, cut).sort();
  const b = nodes.slice(cut).sort();
  return {
    detail: `${a.join(',')} ${bothWays ? '|' : '->x'} ${b.join(',')}`,
    end: await cutLinks(cluster, linksAcross(a, b, bothWays)),
  };
}

/** One node's links, both ways, stop moving bytes (held, not lost) until healed. */
export async function stall(
  cluster: ChaosCluster,
  random: Rng,
  members: readonly string[],
): Promise<Started> {
  const node = pick(random, [...members]);
  const others = cluster.ids.filter((id) => id !== node);
  const links = linksAcross([node], others, true);
  await setLinks(cluster, links, () => ({ kind: 'stall' }));
  return { detail: node, nodes: [node], end: () => setLinks(cluster, links, () => LINK_OK) };
}

/** About half the links between members get `fault`. */
export async function someLinks(
  cluster: ChaosCluster,
  random: Rng,
  members: readonly string[],
  fault: () => LinkFault,
  what: string,
): Promise<Started> {
  const chosen: Cut[] = [];
  for (const from of members)
    for (const to of members) if (from !== to && random() < 0.5) chosen.push([from, to]);
  await setLinks(cluster, chosen, fault);
  return { detail: `${chosen.length} links ${what}`, end: () => setLinks(cluster, chosen, () => LINK_OK) };
}
