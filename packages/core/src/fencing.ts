/**
 * Identity fencing (docs/operations.md, "Identity fencing"): which data dirs may no longer take
 * part in the cluster — one whose identity was superseded (member-identity.ts), or a member
 * removed or that left. Peers refuse their calls; the node itself stops serving once it knows.
 */
import type { NodeId } from './clock.js';
import { TesseraError } from './errors.js';
import { compareIdentities, IDENTITY_GENERATION_MAX, type MemberIdentity } from './member-identity.js';
import { type ClusterState, findMember, type Member } from './membership.js';

/** Why a node's data dir may no longer take part in the cluster. */
export type FenceReason = 'removed' | 'left' | 'superseded';

/**
 * Whether a caller presenting `presented` as its identity (undefined: a peer too old to present
 * one) must be refused as the member `member`. A caller newer than this node's view of it (a
 * rejoin not yet gossiped here) passes: only an older or losing identity is superseded.
 */
export function callerFence(
  state: ClusterState,
  member: Member,
  presented: MemberIdentity | undefined,
): FenceReason | undefined {
  if (presented !== undefined && member.identity !== undefined) {
    const order = compareIdentities(presented, member.identity);
    if (order > 0) return undefined;
    if (order < 0) return 'superseded';
  }
  return member.status === 'removed' ? removalReason(state, member.nodeId) : undefined;
}

/**
 * Whether this node, with data-dir identity `tag`, is fenced by its own view of the cluster:
 * another identity holds its id, or it is removed. A node that watched itself leave in this life
 * (it was `leaving`) is not fenced when the leave commits: it still hands over what it holds.
 */
export function selfFence(
  state: ClusterState,
  self: NodeId,
  tag: string,
  sawLeaving: boolean,
): FenceReason | undefined {
  const me = findMember(state, self);
  if (me === undefined) return undefined;
  if (me.identity !== undefined && me.identity.tag !== tag) return 'superseded';
  if (me.status !== 'removed') return undefined;
  const reason = removalReason(state, self);
  return reason === 'left' && sawLeaving ? undefined : reason;
}

/** `left` if the last committed change about `node` is its leave, else `removed`. */
function removalReason(state: ClusterState, node: NodeId): FenceReason {
  const last = [...(state.history ?? [])].reverse().find((h) => h.nodeId === node);
  return last?.kind === 'leave' ? 'left' : 'removed';
}

/**
 * The identity a seed records for a joiner presenting `tag`: the same identity if it is the one
 * known, else the next generation after the known one (a new data dir under a known id).
 */
export function admittedIdentity(known: Member | undefined, tag: string): MemberIdentity {
  if (known?.identity?.tag === tag) return known.identity;
  return { tag, generation: Math.min((known?.identity?.generation ?? 0) + 1, IDENTITY_GENERATION_MAX) };
}

const WHAT: Record<FenceReason, string> = {
  removed: 'was removed from the cluster',
  left: 'left the cluster',
  superseded: 'was replaced: its id rejoined the cluster with another data dir',
};

/** The NODE_FENCED error for `node`'s data dir, saying what to do. */
export function fencedError(
  node: NodeId,
  clusterId: string,
  reason: FenceReason,
  whose: 'caller' | 'self',
): TesseraError {
  const subject = whose === 'self' ? `This node ("${node}")` : `Node "${node}"`;
  return new TesseraError(
    'NODE_FENCED',
    `${subject} ${WHAT[reason]} ${clusterId}; its data dir may no longer serve or call peers. Stop it, and to bring it back start it with an empty --data-dir and --seed (it joins again as a new data dir).`,
    { nodeId: node, reason, fenced: whose },
  );
}
