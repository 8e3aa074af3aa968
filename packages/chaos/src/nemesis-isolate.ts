/**
 * A long one-sided partition around deletes: one member is cut off (both ways, or only its
 * outgoing or only its incoming links) for longer than the tombstone grace period, so the other
 * side may collect tombstones while it is away. Meanwhile the workloads send part of their ops
 * through it with R=W=1 (the only quorum it can reach) and keep going on the other side, some
 * register deletes reading on its side and deleting on the other.
 *
 * The nemesis also plays the sequence that once brought a delete back. Before the cut: registers
 * written and deleted, each replicated on the node, until the other replicas of one of them have
 * synced with the node since its delete (anti-entropy, in sync). Across the cut: a write through the
 * node alone (W=1), read back there (R=1) and deleted on the other side with that context, onto the
 * tombstone already there. After the heal the deleted write must stay deleted, whether or not the
 * other side collected its tombstone meanwhile.
 */
import { between, pick } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import type { LwwValue } from './history.js';
import { cutLinks, linksAcross } from './nemesis-links.js';
import { type FaultDeps, runningMembers, type Started } from './nemesis-types.js';
import type { ProbeKey, Probes } from './probes.js';
import { lwwOp } from './workloads/lww.js';
import type { Target } from './workloads/worker.js';

/** Registers deleted before the cut, in distinct partitions: the first whose replicas sync is used. */
const CANDIDATES = 4;
/** How long to wait for that sync; below the grace, so the tombstone is still there at the cut. */
const SYNC_WAIT_MS = 8_000;
const POLL_MS = 200;

/** The node cut off and a member on the other side, while the fault is up. */
export interface IsolationState {
  readonly node: string;
  readonly other: string;
}

type Way = 'both' | 'out' | 'in';

interface Deleted extends ProbeKey {
  /** A replica on the other side, running. */
  readonly other: string;
}

export async function isolate(
  deps: FaultDeps,
  graceMs: number,
  onIsolation: (state: IsolationState | undefined) => void,
): Promise<Started> {
  const { cluster, random, probes } = deps;
  const live = runningMembers(deps);
  if (live.length < 2) throw new Error('an isolate needs another running member');
  const node = pick(random, live);
  const others = deps.members().filter((id) => id !== node);
  const way = pick<Way>(random, ['both', 'both', 'out', 'in']);
  const deleted = await deleteSome(probes, node, live);
  const synced = await syncedWith(cluster, node, deleted, Date.now());
  const probe = synced ?? deleted[0];
  const heal = await cutLinks(cluster, cuts(node, others, way));
  onIsolation({
    node,
    other:
      probe?.other ??
      pick(
        random,
        live.filter((id) => id !== node),
      ),
  });
  if (probe !== undefined) await deleteAcross(probes, probe.key, node, probe.other);
  const arrow = { both: '|', out: '->x', in: 'x<-' }[way];
  const across = probe === undefined ? '' : `, delete across on ${probe.key}${synced ? '' : ' (not synced)'}`;
  return {
    detail: `${node} ${arrow} ${others.join(',')}${across}`,
    nodes: [node],
    // Longer than the grace, counted from the delete across: the other side may collect meanwhile.
    holdMs: graceMs + between(random, 2_000, 4_000),
    end: async () => {
      onIsolation(undefined);
      await heal();
    },
  };
}

function cuts(node: string, others: readonly string[], way: Way): [string, string][] {
  if (way === 'both') return linksAcross([node], others, true);
  return way === 'out' ? linksAcross([node], others, false) : linksAcross(others, [node], false);
}

/** Registers replicated on `node` and a running other member, each written and deleted there. */
async function deleteSome(probes: Probes, node: string, live: readonly string[]): Promise<Deleted[]> {
  const out: Deleted[] = [];
  const used = new Set<number>();
  for (let i = 0; i < CANDIDATES; i++) {
    const found = await probes.keyOn('lww', 'isolate', [node], node, used);
    const other = found?.replicas.find((id) => id !== node && live.includes(id));
    if (found === undefined || other === undefined) continue;
    used.add(found.partition);
    const there = probes.target(other);
    if ((await registerOp(probes, found.key, 'write', there, there)) !== 'ok') continue;
    if ((await registerOp(probes, found.key, 'delete', there, there)) === 'ok') out.push({ ...found, other });
  }
  return out;
}

/**
 * The first register whose other replicas have each finished an in-sync exchange with `node`
 * started after `sinceMs` (in each one's clock), waiting up to SYNC_WAIT_MS; undefined if none.
 */
async function syncedWith(
  cluster: ChaosCluster,
  node: string,
  deleted: readonly Deleted[],
  sinceMs: number,
): Promise<Deleted | undefined> {
  const deadline = Date.now() + SYNC_WAIT_MS;
  const peers = [...new Set(deleted.flatMap((d) => d.replicas.filter((id) => id !== node)))];
  while (deleted.length > 0 && Date.now() < deadline) {
    const logs = new Map(
      await Promise.all(
        peers.map(
          async (id) =>
            [
              id,
              await cluster
                .api(id)
                .inSync()
                .catch(() => new Map()),
            ] as const,
        ),
      ),
    );
    const since = (id: string): number => sinceMs + cluster.clockOffsetMs(id);
    const synced = deleted.find((d) =>
      d.replicas
        .filter((id) => id !== node)
        .every((id) => (logs.get(id)?.get(d.partition)?.[node] ?? 0) > since(id)),
    );
    if (synced !== undefined) return synced;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return undefined;
}

/** Across the cut: a write through `node` alone, read there, deleted through `other` with that context. */
async function deleteAcross(probes: Probes, key: string, node: string, other: string): Promise<void> {
  const alone = probes.target(node, true);
  if ((await registerOp(probes, key, 'write', alone, alone)) !== 'ok') return;
  await registerOp(probes, key, 'delete', alone, probes.target(other));
}

function registerOp(
  probes: Probes,
  key: string,
  f: 'write' | 'delete',
  read: Target,
  write: Target,
): Promise<'ok' | 'fail' | 'info'> {
  const value: LwwValue = { id: `nemesis:${probes.nextId()}`, ts: Date.now() };
  return lwwOp(probes.recorder, { key, value, f, read, write });
}
