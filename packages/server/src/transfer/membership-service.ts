/**
 * Membership changes with data (paper 4.8, 4.9): runs the claimant and the transfer receiver on
 * a timer, and carries out the admin calls join, leave and remove. An outage never changes the
 * ring: only these calls record an intent, which the claimant then turns into a ring change.
 */
import {
  type ClusterState,
  findMember,
  type Member,
  type NodeId,
  partitionsOf,
  planTransfers,
  ringMembers,
  TesseraError,
  withMember,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { Claimant } from './claimant.js';
import { Departure } from './departure.js';
import { type TransferProgress, type TransferReceiver, unavailable } from './receiver.js';
import { PartitionRetirer } from './retire.js';
import type { TransfersSent } from './sent.js';

export interface MembershipDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly receiver: TransferReceiver;
  /** What this node served as a source (transfer/source.ts), shown for the transfers it feeds. */
  readonly sent?: Pick<TransfersSent, 'get' | 'clear'>;
  readonly isDown: (node: NodeId) => boolean;
  readonly intervalMs: number;
  /** How long a committed ring must hold before partitions this node left are handed over and dropped. */
  readonly retireDelayMs: number;
  /** Copies older than this are never handed over (transfer/retire.ts). */
  readonly tombstoneGraceMs: number;
  /** Merges an encoded state into a peer's copy of a key (Replicate): how retired keys are handed over. */
  readonly handOver: (node: NodeId, key: string, state: Uint8Array) => Promise<void>;
  /** Hints this node keeps for others: a leaver is not done while it holds any (departure.ts). */
  readonly hintsHeld: () => number;
  readonly now: () => number;
  readonly log: Logger;
  readonly changed: () => void;
  /** A joining node that never confirms is dropped after this, once down (claimant.ts). */
  readonly joinConfirmTimeoutMs: number;
  /** Asks a seed to admit `self` into its cluster (node/join.ts). */
  readonly joinThrough: (seed: string) => Promise<ClusterState>;
}

export interface PendingView {
  readonly kind: string;
  readonly nodeId: NodeId;
  readonly ringVersion: number;
  readonly receivers: NodeId[];
  readonly done: readonly NodeId[];
}

export class MembershipService {
  private timer: NodeJS.Timeout | undefined;
  private readonly claimant: Claimant;
  readonly retirer: PartitionRetirer;
  /** A leaver's way out once its leave committed (departure.ts). */
  readonly departure: Departure;

  /** Joining nodes this node (as claimant) dropped because they never confirmed. */
  get joinsAbandoned(): number {
    return this.claimant.joinsAbandoned;
  }

  /** Keys and partitions this node received by transfer since start. */
  get received(): { keys: number; partitions: number } {
    return { ...this.deps.receiver.received };
  }

  constructor(private readonly deps: MembershipDeps) {
    this.claimant = new Claimant(deps);
    this.retirer = new PartitionRetirer(deps);
    this.departure = new Departure({ ...deps, retirer: this.retirer });
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.deps.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    try {
      await this.claimant.tick();
      await this.deps.receiver.tick();
      await this.retirer.tick();
      await this.departure.tick();
    } catch (err) {
      this.deps.log.warn({ err }, 'membership change step failed; retrying');
    }
  }

  /**
   * Every transfer of the pending change; this node's inbound ones with live progress, and those it
   * is a source of with what it sent.
   */
  transfers(): TransferProgress[] {
    const state = this.deps.view.state;
    const pending = state?.pending;
    if (state === undefined || pending === undefined) {
      this.deps.sent?.clear();
      return [];
    }
    const live = new Map(this.deps.receiver.transfers().map((t) => [`${t.partition}/${t.to}`, t]));
    return planTransfers(state.ring, pending.next, this.deps.n, unavailable(state)).transfers.map((t) => {
      const done = pending.done.includes(t.to);
      const sent = t.sources.includes(this.deps.self) ? this.deps.sent?.get(t.partition) : undefined;
      return (
        live.get(`${t.partition}/${t.to}`) ?? {
          partition: t.partition,
          from: sent === undefined ? (t.sources[0] ?? '') : this.deps.self,
          to: t.to,
          keysSent: sent?.keysSent ?? 0,
          progress: done ? 1 : (sent?.progress ?? 0),
        }
      );
    });
  }

  pending(): PendingView | undefined {
    const state = this.deps.view.state;
    const p = state?.pending;
    if (state === undefined || p === undefined) return undefined;
    const plan = planTransfers(state.ring, p.next, this.deps.n, unavailable(state));
    const receivers = [...new Set(plan.transfers.map((t) => t.to))].sort();
    return { kind: p.kind, nodeId: p.nodeId, ringVersion: p.next.version, receivers, done: p.done };
  }

  /** POST /v1/admin/join: a node alone in a fresh cluster of its own, holding no data, joins `seed`'s. */
  async join(seed: string): Promise<ClusterState> {
    const state = this.deps.view.require();
    const others = state.members.filter((m) => m.nodeId !== this.deps.self && m.status !== 'removed');
    if (others.length > 0 || ringMembers(state.ring).some((id) => id !== this.deps.self)) {
      throw new TesseraError(
        'JOIN_REFUSED',
        `This node already belongs to cluster ${state.clusterId} with other members. Only a node alone in a fresh cluster can join another; use leave first, or start with an empty --data-dir and --seed.`,
      );
    }
    if (await this.holdsData(state)) {
      throw new TesseraError(
        'JOIN_REFUSED',
        'This node holds data; joining another cluster would orphan it. Start the node with an empty --data-dir and --seed instead.',
      );
    }
    const joined = await this.deps.joinThrough(seed);
    if (joined.ring.partitionCount !== state.ring.partitionCount) {
      throw new TesseraError(
        'JOIN_REFUSED',
        `The cluster of ${seed} has ${joined.ring.partitionCount} partitions, this node ${state.ring.partitionCount}. Restart this node with --partitions ${joined.ring.partitionCount} and an empty data dir.`,
      );
    }
    await this.deps.view.set(joined);
    this.deps.changed();
    return joined;
  }

  /** POST /v1/admin/leave: this node hands its partitions over, then leaves. */
  async leave(): Promise<Member> {
    const state = this.deps.view.require();
    const me = this.member(state, this.deps.self);
    if (ringMembers(state.ring).length <= 1)
      throw new TesseraError('BAD_REQUEST', 'The last node of a cluster cannot leave it.');
    return this.mark(state, { ...me, status: 'leaving', incarnation: me.incarnation + 1 });
  }

  /** POST /v1/admin/remove: a dead member is removed for good; its partitions are re-replicated. */
  async remove(nodeId: NodeId): Promise<Member> {
    const state = this.deps.view.require();
    if (nodeId === this.deps.self)
      throw new TesseraError('BAD_REQUEST', 'A node cannot remove itself; use POST /v1/admin/leave.');
    const target = this.member(state, nodeId);
    if (ringMembers(state.ring).filter((id) => id !== nodeId).length === 0)
      throw new TesseraError('BAD_REQUEST', 'Removing the last node of the ring would lose every partition.');
    return this.mark(state, { ...target, status: 'removed', incarnation: target.incarnation + 1 });
  }

  private async mark(state: ClusterState, member: Member): Promise<Member> {
    await this.deps.view.merge(withMember(state, member));
    this.deps.log.info({ member: member.nodeId, status: member.status }, 'membership change requested');
    this.deps.changed();
    return findMember(this.deps.view.require(), member.nodeId)!;
  }

  private member(state: ClusterState, nodeId: NodeId): Member {
    const m = findMember(state, nodeId);
    if (m === undefined || m.status === 'removed')
      throw new TesseraError('NOT_FOUND', `Node "${nodeId}" is not a member of this cluster.`);
    return m;
  }

  private async holdsData(state: ClusterState): Promise<boolean> {
    for (const p of partitionsOf(state.ring, this.deps.self)) {
      for await (const _ of this.deps.store.scanPartition(p, { limit: 1 })) return true;
    }
    return false;
  }
}
