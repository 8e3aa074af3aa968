/**
 * Cluster membership as gossiped between nodes: who the members are, how to reach them, and the
 * ring. Any two states merge so that two nodes that gossip converge, whatever order they heard
 * things in. Liveness (up/down) is not here: each node judges that locally (paper 4.8.3).
 */
import type { NodeId } from './clock.js';
import { type ClusterSettings, mergeSettings, sameSettings } from './cluster-settings.js';
import { TesseraError } from './errors.js';
import { compareIdentities, type MemberIdentity } from './member-identity.js';
import type { Ring } from './ring.js';
import {
  type ChangeRecord,
  livePending,
  mergeHistory,
  mergePending,
  type PendingChange,
} from './ring-change.js';

export type MemberStatus = 'joining' | 'member' | 'leaving' | 'removed';

export interface Member {
  readonly nodeId: NodeId;
  /** host:port of the node's HTTP API. */
  readonly http: string;
  /** host:port of the node's peer (gRPC) endpoint. */
  readonly peer: string;
  readonly status: MemberStatus;
  /** Raised by the node itself whenever its own record changes; the higher one wins. */
  readonly incarnation: number;
  /**
   * The data dir holding this id (member-identity.ts); a higher identity supersedes a lower one
   * whatever their incarnations. Absent in records from nodes older than identity fencing.
   */
  readonly identity?: MemberIdentity;
}

export interface ClusterState {
  /** Chosen when the cluster is created; nodes of different clusters never merge. */
  readonly clusterId: string;
  /** Fixed when the cluster is created; absent in states from nodes older than this field. */
  readonly settings?: ClusterSettings;
  readonly ring: Ring;
  /** Sorted by nodeId. */
  readonly members: readonly Member[];
  /** A ring change being carried out (paper 4.9); absent when the ring is settled. */
  readonly pending?: PendingChange;
  /** The latest committed membership changes, oldest first. */
  readonly history?: readonly ChangeRecord[];
}

const STATUS_RANK: Record<MemberStatus, number> = { joining: 0, member: 1, leaving: 2, removed: 3 };

export function mergeClusterStates(a: ClusterState, b: ClusterState): ClusterState {
  if (a.clusterId !== b.clusterId) {
    throw new TesseraError(
      'CLUSTER_MISMATCH',
      `Peer belongs to cluster ${b.clusterId}, this node to ${a.clusterId}. Point the node at a seed of its own cluster, or start it with an empty data dir.`,
    );
  }
  const ring = laterRing(a.ring, b.ring);
  const pending = livePending(mergePending(a.pending, b.pending), ring);
  const history = mergeHistory(a.history, b.history);
  const settings = mergeSettings(a.settings, b.settings);
  return {
    clusterId: a.clusterId,
    ...(settings === undefined ? {} : { settings }),
    ring,
    members: mergeMembers(a.members, b.members),
    ...(pending === undefined ? {} : { pending }),
    ...(history.length === 0 ? {} : { history }),
  };
}

function laterRing(a: Ring, b: Ring): Ring {
  if (a.partitionCount !== b.partitionCount) {
    throw new TesseraError('CLUSTER_MISMATCH', 'Peer has a ring with a different partition count.');
  }
  if (a.version !== b.version) return a.version > b.version ? a : b;
  // Equal versions written by two nodes at once: pick one deterministically so both sides agree.
  return a.owners.join(',') <= b.owners.join(',') ? a : b;
}

function mergeMembers(a: readonly Member[], b: readonly Member[]): Member[] {
  const byId = new Map<NodeId, Member>();
  for (const m of [...a, ...b]) {
    const present = byId.get(m.nodeId);
    byId.set(m.nodeId, present === undefined ? m : laterMember(present, m));
  }
  return [...byId.values()].sort((x, y) => (x.nodeId < y.nodeId ? -1 : x.nodeId > y.nodeId ? 1 : 0));
}

function laterMember(x: Member, y: Member): Member {
  const identity = compareIdentities(x.identity, y.identity);
  if (identity !== 0) return identity > 0 ? x : y;
  if (x.incarnation !== y.incarnation) return x.incarnation > y.incarnation ? x : y;
  if (x.status !== y.status) return STATUS_RANK[x.status] > STATUS_RANK[y.status] ? x : y;
  if ((x.identity === undefined) !== (y.identity === undefined)) return x.identity === undefined ? y : x;
  return `${x.http}|${x.peer}` <= `${y.http}|${y.peer}` ? x : y;
}

export function withMember(state: ClusterState, member: Member): ClusterState {
  return { ...state, members: mergeMembers(state.members, [member]) };
}

export function findMember(state: ClusterState, nodeId: NodeId): Member | undefined {
  return state.members.find((m) => m.nodeId === nodeId);
}

export function sameClusterState(a: ClusterState, b: ClusterState): boolean {
  if (a.ring.version !== b.ring.version || a.members.length !== b.members.length) return false;
  if (a.ring.owners.join(',') !== b.ring.owners.join(',')) return false;
  if (pendingKey(a) !== pendingKey(b)) return false;
  if (!sameSettings(a.settings, b.settings)) return false;
  if (JSON.stringify(a.history ?? []) !== JSON.stringify(b.history ?? [])) return false;
  return a.members.every((m, i) => {
    const o = b.members[i]!;
    return (
      m.nodeId === o.nodeId &&
      m.incarnation === o.incarnation &&
      m.status === o.status &&
      compareIdentities(m.identity, o.identity) === 0 &&
      (m.identity === undefined) === (o.identity === undefined)
    );
  });
}

function pendingKey(s: ClusterState): string {
  const p = s.pending;
  return p === undefined
    ? ''
    : `${p.next.version}|${p.kind}|${p.nodeId}|${p.next.owners.join(',')}|${p.done.join(',')}`;
}
