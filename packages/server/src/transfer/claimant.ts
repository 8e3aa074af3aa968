/**
 * The claimant: one node, chosen deterministically (the lowest id among reachable full members
 * of the ring), turns membership intents into ring changes, one at a time (paper 4.8.1, 4.9).
 * A member marked joining, leaving or removed is an intent; the claimant proposes the next ring
 * (core claim/release) as a pending change, and commits it once every receiver confirmed.
 * If two nodes briefly both act as claimant, their proposals merge deterministically.
 */
import {
  type ChangeKind,
  type ClusterState,
  claim,
  type Member,
  type NodeId,
  planTransfers,
  type Ring,
  release,
  ringMembers,
  withRecord,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import { unavailable } from './receiver.js';

export interface ClaimantDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly isDown: (node: NodeId) => boolean;
  readonly now: () => number;
  readonly log: Logger;
  readonly changed: () => void;
}

export class Claimant {
  constructor(private readonly deps: ClaimantDeps) {}

  isClaimant(state: ClusterState): boolean {
    const inRing = new Set(ringMembers(state.ring));
    const candidates = state.members
      .filter((m) => m.status === 'member' && inRing.has(m.nodeId))
      .filter((m) => m.nodeId === this.deps.self || !this.deps.isDown(m.nodeId))
      .map((m) => m.nodeId)
      .sort();
    return candidates[0] === this.deps.self;
  }

  async tick(): Promise<void> {
    const state = this.deps.view.state;
    if (state === undefined || !this.isClaimant(state)) return;
    const next = state.pending === undefined ? this.propose(state) : this.commit(state);
    if (next === undefined) return;
    await this.deps.view.merge(next);
    this.deps.changed();
  }

  private propose(state: ClusterState): ClusterState | undefined {
    const intent = nextIntent(state);
    if (intent === undefined) return undefined;
    let next: Ring;
    try {
      next =
        intent.kind === 'join'
          ? claim(state.ring, intent.nodeId, this.deps.n)
          : release(state.ring, intent.nodeId, this.deps.n);
    } catch (err) {
      this.deps.log.warn({ err, intent }, 'cannot carry out a membership change');
      return undefined;
    }
    this.deps.log.info({ ...intent, ringVersion: next.version }, 'ring change proposed');
    return { ...state, pending: { next, kind: intent.kind, nodeId: intent.nodeId, done: [] } };
  }

  private commit(state: ClusterState): ClusterState | undefined {
    const pending = state.pending!;
    const plan = planTransfers(state.ring, pending.next, this.deps.n, unavailable(state));
    // A receiver removed meanwhile confirms nothing: its partitions move again when it is released.
    const gone = unavailable(state);
    const receivers = new Set(plan.transfers.map((t) => t.to).filter((to) => !gone.has(to)));
    if (![...receivers].every((r) => pending.done.includes(r))) return undefined;
    const members = state.members.map((m): Member => {
      if (m.nodeId !== pending.nodeId) return m;
      return { ...m, status: pending.kind === 'join' ? 'member' : 'removed' };
    });
    const history = withRecord(state.history, {
      ringVersion: pending.next.version,
      kind: pending.kind,
      nodeId: pending.nodeId,
      atMs: this.deps.now(),
    });
    this.deps.log.info(
      { kind: pending.kind, nodeId: pending.nodeId, ringVersion: pending.next.version },
      'ring change committed',
    );
    const { pending: _over, ...rest } = state;
    return { ...rest, ring: pending.next, members, history };
  }
}

/** The first membership intent not yet reflected in the ring, in node id order. */
export function nextIntent(state: ClusterState): { kind: ChangeKind; nodeId: NodeId } | undefined {
  const inRing = new Set(ringMembers(state.ring));
  for (const m of state.members) {
    if (m.status === 'joining' && !inRing.has(m.nodeId)) return { kind: 'join', nodeId: m.nodeId };
    if (m.status === 'leaving' && inRing.has(m.nodeId)) return { kind: 'leave', nodeId: m.nodeId };
    if (m.status === 'removed' && inRing.has(m.nodeId)) return { kind: 'remove', nodeId: m.nodeId };
  }
  return undefined;
}
