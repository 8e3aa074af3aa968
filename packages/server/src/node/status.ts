/** This node's view of itself and its cluster, as `/v1/status` and `/v1/status/repair` show it. */
import { type ClusterState, partitionCounts } from '@tessera/core';
import type { MembershipService } from '../transfer/membership-service.js';
import type { NodeParts } from './assembly.js';
import type { NodeFence } from './fence.js';

/** `retiring`: a leaver out of the ring, still handing over what it holds (transfer/departure.ts). */
export type MemberView = 'up' | 'down' | 'joining' | 'leaving' | 'retiring';

export type StatusSources = Pick<
  NodeParts,
  'config' | 'view' | 'peers' | 'incarnation' | 'engine' | 'strong'
> & {
  readonly membership: Pick<MembershipService, 'pending' | 'transfers' | 'retirer' | 'departure'>;
  /** Identity fencing (fence.ts): absent in parts that never serve (tests). */
  readonly fence?: Pick<NodeFence, 'status'>;
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
    /** This node's own way out of the cluster after a leave, with progress; null when not leaving. */
    departure: membership.departure.view(),
    incarnation: node.incarnation.tag,
    /** Why this node's data dir serves nothing (removed, left, superseded); null when it serves. */
    fenced: node.fence?.status() ?? null,
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
          ? retiringOr(m.status, counts.has(m.nodeId))
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

/** A leaver whose leave committed (it owns no partition any more) is retiring. */
function retiringOr(status: 'joining' | 'leaving', inRing: boolean): MemberView {
  return status === 'leaving' && !inRing ? 'retiring' : status;
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
