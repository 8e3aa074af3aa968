/**
 * What this node does for its peers: replica reads and writes, forwarded writes, gossip, joins.
 * The gRPC server validated the shapes; contents are validated here as they are decoded.
 */
import {
  admittedIdentity,
  type ClusterState,
  decodePeerState,
  isJsonText,
  type Member,
  type NodeSettings,
  settingsMismatch,
  TesseraError,
  withMember,
} from '@tessera/core';
import type { MerkleResponder } from '../anti-entropy/responder.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Coordinator } from '../coordinator/coordinator.js';
import type { Logger } from '../logger.js';
import type { HintStore } from '../storage/hint-store.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import type {
  CoordinateReply,
  CoordinateRequest,
  MerkleKeysReply,
  MerkleKeysRequest,
  PeerApi,
} from '../transport/peer-api.js';
import { promised } from '../util/promised.js';
import { SETTINGS_ADVICE } from './cluster-settings.js';

export interface Serving {
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly coordinator: Coordinator;
  readonly merkle: MerkleResponder;
}

export class PeerHandler implements PeerApi {
  private serving: Serving | undefined;
  private joins: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly self: string,
    private readonly view: ClusterView,
    private readonly log: Logger,
  ) {}

  /** Called once the node has a cluster and a store; until then data calls get NODE_NOT_READY. */
  ready(serving: Serving): void {
    this.serving = serving;
  }

  /** Called after this node changed the cluster state on its own, to spread the change quickly. */
  changed: () => void = () => {};

  // Not async frames (read and replicate): each replicated write and replica read runs one, and an
  // async function returning a promise costs two more microtask hops (util/promised.ts).
  read(key: string): Promise<Uint8Array | undefined> {
    return promised(() => this.require().store.readEncoded(key));
  }

  replicate(key: string, state: Uint8Array, hint?: string): Promise<void> {
    return promised(() => {
      const serving = this.require();
      const decoded = decodePeerState(state);
      // A copy: the received bytes are a view into the whole pipe message, which a cached state's
      // bytes would keep alive.
      if (hint === undefined || hint === this.self)
        return serving.store.merge(key, decoded, state.slice()).then(nothing);
      return serving.hints.add(hint, key, decoded);
    });
  }

  async coordinate(request: CoordinateRequest): Promise<CoordinateReply> {
    // Values are spliced into HTTP responses as they are: only JSON text may be stored.
    if (request.value !== undefined && !isJsonText(request.value)) {
      throw new TesseraError('BAD_REQUEST', 'The forwarded value is not UTF-8 JSON text.');
    }
    // The context and the receipt of how the write was stored.
    return this.require().coordinator.write(request.key, {
      value: request.value,
      forwarded: true,
      timeoutMs: request.timeoutMs,
      ...(request.context === undefined ? {} : { context: request.context }),
      ...(request.w === undefined ? {} : { w: request.w }),
    });
  }

  merkleHashes(partition: number, level: number, indices: readonly number[]): Promise<Uint8Array> {
    return this.require().merkle.merkleHashes(partition, level, indices);
  }

  merkleKeys(request: MerkleKeysRequest): Promise<MerkleKeysReply> {
    return this.require().merkle.merkleKeys(request);
  }

  async gossip(state: ClusterState): Promise<ClusterState> {
    this.view.require();
    await this.view.merge(state);
    return this.view.require();
  }

  /** Admits `member` (serialized, so two joins through this node never claim the same partitions). */
  join(member: Member, settings?: NodeSettings): Promise<ClusterState> {
    const result = this.joins.then(() => this.admit(member, settings));
    this.joins = result.catch(() => {});
    return result;
  }

  private async admit(member: Member, settings: NodeSettings | undefined): Promise<ClusterState> {
    const state = this.view.require();
    const mismatch =
      state.settings === undefined || settings === undefined
        ? undefined
        : settingsMismatch(state.settings, state.ring.partitionCount, settings);
    if (mismatch !== undefined) {
      throw new TesseraError(
        'JOIN_REFUSED',
        `Node "${member.nodeId}" was not admitted: ${mismatch}. ${SETTINGS_ADVICE}`,
      );
    }
    const known = state.members.find((m) => m.nodeId === member.nodeId);
    if (known !== undefined && known.status !== 'removed') {
      if (known.http !== member.http || known.peer !== member.peer) {
        throw new TesseraError(
          'JOIN_REFUSED',
          `Node id "${member.nodeId}" is already a member at ${known.peer}. Pick another --node-id, or restart that node with its own data dir.`,
        );
      }
      if (member.identity === undefined || known.identity?.tag === member.identity.tag) return state;
      return this.supersede(known, member.identity.tag);
    }
    // Admission only records the intent; the claimant moves partitions to it (transfer/claimant.ts).
    const incarnation =
      known === undefined ? member.incarnation : Math.max(member.incarnation, known.incarnation + 1);
    const identity =
      member.identity === undefined ? {} : { identity: admittedIdentity(known, member.identity.tag) };
    await this.view.merge(withMember(state, { ...member, ...identity, incarnation, status: 'joining' }));
    this.log.info({ joining: member.nodeId }, 'node admitted; its partitions follow');
    this.changed();
    return this.view.require();
  }

  /**
   * A member rejoins with a new data dir (wiped, at the same addresses): the new identity takes
   * its record over, so its old data dir, if it ever runs again, is refused (identity fencing).
   */
  private async supersede(known: Member, tag: string): Promise<ClusterState> {
    const identity = admittedIdentity(known, tag);
    await this.view.merge(
      withMember(this.view.require(), { ...known, identity, incarnation: known.incarnation + 1 }),
    );
    this.log.info(
      { nodeId: known.nodeId, generation: identity.generation },
      'member rejoined with a new data dir; its earlier data dir is fenced',
    );
    this.changed();
    return this.view.require();
  }

  private require(): Serving {
    if (this.serving === undefined) {
      throw new TesseraError('NODE_NOT_READY', 'This node is still starting; retry shortly.');
    }
    return this.serving;
  }
}

function nothing(): void {}
