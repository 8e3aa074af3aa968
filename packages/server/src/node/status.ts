/** This node's view of itself and its cluster, as `/v1/status` and `/v1/status/repair` show it. */
import { type ClusterState, partitionCounts } from '@tessera/core';
import type { MembershipService } from '../transfer/membership-service.js';
import type { NodeParts } from './assembly.js';

export type MemberView = 'up' | 'down' | 'joining' | 'leaving';

export type StatusSources = Pick<
  NodeParts,
  'config' | 'view' | 'peers' | 'incarnation' | 'engine' | 'strong'
> & {
  readonly membership: Pick<MembershipService, 'pending' | 'transfers' | 'retirer'>;
};

export type StatusView = ReturnType<typeof nodeStatus>;

export function nodeStatus(node: StatusSources) {
  const { config, membership } = node;
  const state = node.view.require();
  return {
    nodeId: config.nodeId,
    pid: process.pid,
    clusterId: state.clusterId,
    n: config.n,
    r: config.r,
    w: config.w,
    partitionCount: state.ring.partitionCount,
    ringVersion: state.ring.version,
    ring: {
      partitionCount: state.ring.partitionCount,
      version: state.ring.version,
      owners: state.ring.owners,
    },
    pending: membership.pending() ?? null,
    transfers: membership.transfers(),
    retiring: membership.retirer.retiring ?? null,
    retireExpired: membership.retirer.expired,
    incarnation: node.incarnation.tag,
    history: state.history ?? [],
    storage: node.engine.kind,
    durability: config.durability,
    members: memberViews(node, state),
    strong: {
      namespaces: config.strongNamespaces,
      /** True while a wiped node rebuilds its strong records (it votes on nothing until done). */
      recovering: node.strong.recovery.recovering,
      /** Stalled transactions' intents settled and records cancelled by this node's recovery sweep. */
      sweep: { ...node.strong.sweeper.stats },
    },
  };
}

function memberViews(node: StatusSources, state: ClusterState) {
  const counts = partitionCounts(state.ring);
  const health = new Map(node.peers.health().map((h) => [h.nodeId, h]));
  return state.members
    .filter((m) => m.status !== 'removed')
    .map((m) => {
      const view: MemberView =
        m.status === 'joining' || m.status === 'leaving'
          ? m.status
          : health.get(m.nodeId)?.down
            ? 'down'
            : 'up';
      return {
        nodeId: m.nodeId,
        http: m.http,
        peer: m.peer,
        status: view,
        partitions: counts.get(m.nodeId) ?? 0,
      };
    });
}

export type RepairView = ReturnType<typeof repairStatus>;

/** Hints held, handoff, background admission and anti-entropy, for `/v1/status/repair`. */
export function repairStatus(
  node: Pick<NodeParts, 'config' | 'hints' | 'handoff' | 'admission' | 'antiEntropy'>,
) {
  return {
    nodeId: node.config.nodeId,
    hints: { held: Object.fromEntries(node.hints.targets()), total: node.hints.totals() },
    handoff: node.handoff.stats(),
    admission: node.admission.stats(),
    antiEntropy: node.antiEntropy.stats(),
  };
}
