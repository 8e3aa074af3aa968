/**
 * The membership half of the peer guard (peer-guard.ts), on what the caller presents: its
 * cluster id, and its data-dir identity (core member-identity.ts). A caller of another cluster
 * is refused with CLUSTER_MISMATCH naming both ids; a member removed, that left, or whose data dir
 * was superseded under its id with NODE_FENCED (core fencing.ts); a node that is no member with
 * FORBIDDEN, except for gossip, which non-members (and a member that left) may call as long as
 * their cluster is this one.
 */
import {
  type ClusterState,
  callerFence,
  fencedError,
  findMember,
  parseIdentity,
  TesseraError,
} from '@tessera/core';

export interface PresentedFacts {
  readonly nodeId: string;
  /** `tessera-cluster`: absent from a node that has no cluster yet, or from older versions. */
  readonly clusterId?: string | undefined;
  /** `tessera-identity`, `<generation>.<tag>`: absent from older versions. */
  readonly identity?: string | undefined;
}

/** Why a call (not a Join) from this caller is refused, or undefined; `openToNonMembers` for Gossip. */
export function membershipRefusal(
  facts: PresentedFacts,
  state: ClusterState,
  openToNonMembers: boolean,
): TesseraError | undefined {
  const { nodeId, clusterId } = facts;
  if (clusterId !== undefined && clusterId !== state.clusterId)
    return new TesseraError(
      'CLUSTER_MISMATCH',
      `Node "${nodeId}" belongs to cluster ${clusterId.slice(0, 128)}, this node to cluster ${state.clusterId}. A data dir of one cluster cannot take part in another: start the node with an empty --data-dir to join cluster ${state.clusterId} as a new node, or point --seed at a node of its own cluster.`,
      { clusterId: state.clusterId, callerClusterId: clusterId.slice(0, 128) },
    );
  const member = findMember(state, nodeId);
  if (member === undefined) {
    if (openToNonMembers) return undefined;
    return new TesseraError(
      'FORBIDDEN',
      `Node "${nodeId}" is not a member of cluster ${state.clusterId}; it must join first (tessera admin join).`,
    );
  }
  const presented = facts.identity === undefined ? undefined : parseIdentity(facts.identity);
  if (facts.identity !== undefined && presented === undefined)
    return new TesseraError('BAD_REQUEST', 'The tessera-identity metadata is not <generation>.<tag>.');
  const reason = callerFence(state, member, presented);
  // A node that left still pulls the view through gossip: that is how it learns its leave
  // committed, and hands over what it holds (transfer/retire.ts).
  if (reason === 'left' && openToNonMembers) return undefined;
  return reason === undefined ? undefined : fencedError(nodeId, state.clusterId, reason, 'caller');
}
