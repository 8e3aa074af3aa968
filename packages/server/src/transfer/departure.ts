/**
 * A leaving node's way out (paper 4.9). Its leave commits once the new replicas have pulled its
 * partitions; it is then out of the ring but stays `leaving` (shown as `retiring`): it keeps
 * serving clients as a coordinator, and hands over what it still holds (retire.ts: versions that
 * reached it after its partitions were pulled) and the hints it keeps. Peers accept its calls
 * while it is leaving, as those of any member. Once nothing is left, it marks itself removed under
 * a higher incarnation, which gossip spreads: from then on peers may refuse its calls, and it
 * answers client requests with NODE_LEFT, naming the members to use instead.
 */
import {
  type ClusterState,
  findMember,
  type NodeId,
  ringMembers,
  TesseraError,
  withMember,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { PartitionRetirer } from './retire.js';

/** `leaving`: its ring change is still to commit; `retiring`: out of the ring, handing over; `left`: done. */
export type DeparturePhase = 'leaving' | 'retiring' | 'left';

/** A departure as `/v1/status` shows it (`departure`), null for a node that is not leaving. */
export interface DepartureView {
  readonly phase: DeparturePhase;
  /** Partitions it no longer replicates that still held keys after the last pass (null: no pass yet). */
  readonly partitionsHeld: number | null;
  /** Keys they still held after the last pass (null: no pass yet). */
  readonly keysHeld: number | null;
  /** Keys handed over since the current ring. */
  readonly keysHandedOver: number;
  /** Hints this node still keeps for others. */
  readonly hintsHeld: number;
  /** From 0 to 1: keys handed over among those it had to hand over (1 once it left). */
  readonly progress: number;
}

/**
 * Passes in a row that found nothing to hand over before the node counts as done: a copy that
 * reached it during the first clean pass (from a peer that had not heard of the change yet) is
 * found by the next.
 */
const CLEAN_PASSES_MIN = 2;
/** Member addresses a NODE_LEFT answer names at most. */
const MEMBERS_NAMED_MAX = 16;

export interface DepartureDeps {
  readonly self: NodeId;
  readonly view: ClusterView;
  readonly retirer: Pick<PartitionRetirer, 'retiring' | 'keysHeld' | 'keysHandedOver' | 'cleanPassesOver'>;
  /** How many hints this node keeps for others. */
  readonly hintsHeld: () => number;
  readonly log: Logger;
  /** Spreads a state change by gossip at once. */
  readonly changed: () => void;
}

export class Departure {
  constructor(private readonly deps: DepartureDeps) {}

  /** Marks this node removed once it has handed everything over after its leave committed. */
  async tick(): Promise<void> {
    const { self, view, retirer } = this.deps;
    const state = view.state;
    if (state === undefined || state.pending !== undefined) return;
    if (departurePhase(state, self) !== 'retiring') return;
    if (retirer.cleanPassesOver(state.ring.version) < CLEAN_PASSES_MIN || this.deps.hintsHeld() > 0) return;
    const me = findMember(state, self)!;
    await view.merge(withMember(state, { ...me, status: 'removed', incarnation: me.incarnation + 1 }));
    this.deps.log.info(
      { keysHandedOver: retirer.keysHandedOver, ringVersion: state.ring.version },
      'handed everything over: this node has left the cluster and now refuses client requests',
    );
    this.deps.changed();
  }

  view(): DepartureView | null {
    const state = this.deps.view.state;
    const phase = state === undefined ? undefined : departurePhase(state, this.deps.self);
    if (phase === undefined) return null;
    const { retiring, keysHeld, keysHandedOver } = this.deps.retirer;
    const toHand = keysHandedOver + (keysHeld ?? 0);
    const progress =
      phase === 'left'
        ? 1
        : phase === 'leaving' || keysHeld === undefined
          ? 0
          : ratio(keysHandedOver, toHand);
    return {
      phase,
      partitionsHeld: retiring ?? null,
      keysHeld: keysHeld ?? null,
      keysHandedOver,
      hintsHeld: this.deps.hintsHeld(),
      progress,
    };
  }
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 1 : Math.min(1, part / whole);
}

/** Where `self` is on its way out of the cluster; undefined for a node that is not leaving. */
export function departurePhase(state: ClusterState, self: NodeId): DeparturePhase | undefined {
  const me = findMember(state, self);
  if (me?.status === 'removed') return leftThroughLeave(state, self) ? 'left' : undefined;
  if (me?.status !== 'leaving') return undefined;
  return ringMembers(state.ring).includes(self) ? 'leaving' : 'retiring';
}

/** Its last committed change is a leave (not a remove by an operator). */
function leftThroughLeave(state: ClusterState, self: NodeId): boolean {
  const mine = (state.history ?? []).filter((r) => r.nodeId === self);
  return mine.at(-1)?.kind === 'leave';
}

/** The answer to a client request on a node that left: NODE_LEFT naming members to use; else undefined. */
export function leftClusterError(state: ClusterState, self: NodeId): TesseraError | undefined {
  if (departurePhase(state, self) !== 'left') return undefined;
  const members = state.members
    .filter((m) => m.status === 'member')
    .slice(0, MEMBERS_NAMED_MAX)
    .map((m) => m.http);
  return new TesseraError(
    'NODE_LEFT',
    `Node "${self}" left cluster ${state.clusterId} and serves no data. Send requests to a member: ${members.join(', ')}.`,
    { members },
  );
}
