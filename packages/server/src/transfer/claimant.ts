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
  findMember,
  type Member,
  type NodeId,
  planTransfers,
  type Ring,
  release,
  ringMembers,
  withMember,
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
  /**
   * A joining node that has not confirmed its partitions this long after the change was proposed,
   * and is down, is dropped (marked removed), so a node that died after its admission (a port in
   * use, a crash at start) does not leave the ring change stuck.
   */
  readonly joinConfirmTimeoutMs: number;
}

export class Claimant {
  /** Since when this claimant has seen the current pending change (its ring version). */
  private pendingSince: { readonly version: number; readonly atMs: number } | undefined;
  /** Joining nodes dropped because they never confirmed (a metric). */
  joinsAbandoned = 0;

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
    const next =
      state.pending === undefined
        ? this.propose(state)
        : (this.abandonStaleJoin(state) ?? this.commit(state));
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

  /** Marks removed a joining node that never confirmed and is down (see `joinConfirmTimeoutMs`). */
  private abandonStaleJoin(state: ClusterState): ClusterState | undefined {
    const pending = state.pending!;
    const nowMs = this.deps.now();
    if (this.pendingSince?.version !== pending.next.version) {
      this.pendingSince = { version: pending.next.version, atMs: nowMs };
    }
    if (pending.kind !== 'join' || pending.done.includes(pending.nodeId)) return undefined;
    if (
      nowMs - this.pendingSince.atMs < this.deps.joinConfirmTimeoutMs ||
      !this.deps.isDown(pending.nodeId)
    ) {
      return undefined;
    }
    const joiner = findMember(state, pending.nodeId);
    if (joiner?.status !== 'joining') return undefined;
    this.joinsAbandoned++;
    this.deps.log.warn(
      { joiner: pending.nodeId, ringVersion: pending.next.version, waitedMs: nowMs - this.pendingSince.atMs },
      'dropping a joining node that never confirmed its partitions and is down; start it again to rejoin',
    );
    return withMember(state, { ...joiner, status: 'removed', incarnation: joiner.incarnation + 1 });
  }

  private commit(state: ClusterState): ClusterState | undefined {
    const pending = state.pending!;
    const plan = planTransfers(state.ring, pending.next, this.deps.n, unavailable(state));
    // A receiver removed meanwhile confirms nothing: its partitions move again when it is released.
    const gone = unavailable(state);
    const receivers = new Set(plan.transfers.map((t) => t.to).filter((to) => !gone.has(to)));
    if (![...receivers].every((r) => pending.done.includes(r))) return undefined;
    // A leaver stays `leaving` (out of the ring, so retiring) until it has handed everything over:
    // peers keep accepting its calls meanwhile, and it marks itself removed (transfer/departure.ts).
    const members = state.members.map((m): Member => {
      if (m.nodeId !== pending.nodeId || pending.kind === 'leave') return m;
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
