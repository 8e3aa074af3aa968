/**
 * This node's side of identity fencing (core fencing.ts, docs/operations.md "Identity fencing"):
 * what it presents on every peer call (its cluster id and data-dir identity), and whether its data
 * dir is fenced — learned from its own view of the cluster (at start, or by gossip) or from a
 * peer's refusal. Once fenced, for good in this process: clients and peers get NODE_FENCED, the
 * background work stops, `/v1/status` shows why, and one error line is logged.
 */
import {
  type ClusterState,
  type FenceReason,
  fencedError,
  findMember,
  formatIdentity,
  type NodeId,
  selfFence,
  TesseraError,
} from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { PeerClientFactory } from '../cluster/peers.js';
import type { Logger } from '../logger.js';
import { CLUSTER_METADATA, IDENTITY_METADATA } from '../transport/credentials.js';
import type { PeerClient } from '../transport/peer-api.js';

const REASONS: readonly FenceReason[] = ['removed', 'left', 'superseded'];

export interface FenceStatus {
  readonly reason: FenceReason;
  readonly message: string;
  /** Where this node learned it: `its own view of the cluster`, or `a refusal from peer X`. */
  readonly learnedFrom: string;
}

export class NodeFence {
  private view: ClusterView | undefined;
  private fenced: { readonly error: TesseraError; readonly status: FenceStatus } | undefined;
  /** This process saw this node `leaving`: when its leave commits, it still hands over (not fenced). */
  private sawLeaving = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly self: NodeId,
    private readonly log: Logger,
  ) {}

  /** The view this node's identity and cluster are read from; before it, nothing is presented. */
  bind(view: ClusterView): void {
    this.view = view;
  }

  /** `tessera-cluster` and `tessera-identity` for every outgoing peer call. */
  metadata(): Readonly<Record<string, string>> {
    const view = this.view;
    const state = view?.state;
    let tag: string;
    try {
      tag = view === undefined ? '' : view.tag;
    } catch {
      return {};
    }
    if (tag === '') return {};
    const mine = state === undefined ? undefined : findMember(state, this.self)?.identity;
    // A record holding another tag (superseded) or none yet: generation 0 ranks below any admitted one.
    const identity = mine?.tag === tag ? mine : { tag, generation: 0 };
    return {
      [IDENTITY_METADATA]: formatIdentity(identity),
      ...(state === undefined ? {} : { [CLUSTER_METADATA]: state.clusterId }),
    };
  }

  /** Checks the current state now and every state the view takes from now on. */
  watch(): void {
    const view = this.view;
    if (view === undefined) return;
    if (view.state !== undefined) this.check(view.state);
    view.onChange((state) => this.check(state));
  }

  /** Fenced by this node's own view: another identity holds its id, or it was removed. */
  check(state: ClusterState): void {
    if (this.fenced !== undefined || this.view === undefined) return;
    if (findMember(state, this.self)?.status === 'leaving') this.sawLeaving = true;
    const reason = selfFence(state, this.self, this.view.tag, this.sawLeaving);
    if (reason !== undefined) this.fence(reason, state.clusterId, 'its own view of the cluster');
  }

  /** Told of every failed peer call: a peer's NODE_FENCED about this node fences it. */
  observe(err: unknown): void {
    if (this.fenced !== undefined || !TesseraError.is(err) || err.code !== 'NODE_FENCED') return;
    const details = err.details ?? {};
    if (details.fenced !== 'caller' || details.nodeId !== this.self) return;
    const reason = REASONS.find((r) => r === details.reason);
    if (reason === undefined || (reason === 'left' && this.sawLeaving)) return;
    const peer = typeof details.peer === 'string' ? details.peer : 'a peer';
    this.fence(reason, this.view?.state?.clusterId ?? 'its cluster', `a refusal from peer ${peer}`);
  }

  /** NODE_FENCED for this node's clients and peers once fenced; else undefined. */
  refusal(): TesseraError | undefined {
    return this.fenced?.error;
  }

  status(): FenceStatus | null {
    return this.fenced?.status ?? null;
  }

  /** Runs `listener` once, when this node is fenced (at once if it is already). */
  onFenced(listener: () => void): void {
    if (this.fenced === undefined) this.listeners.push(listener);
    else listener();
  }

  private fence(reason: FenceReason, clusterId: string, learnedFrom: string): void {
    const error = fencedError(this.self, clusterId, reason, 'self');
    this.fenced = { error, status: { reason, message: error.message, learnedFrom } };
    this.log.error({ reason, learnedFrom }, `data dir fenced: ${error.message}`);
    for (const listener of this.listeners.splice(0)) listener();
  }
}

/** `connect` whose clients tell `fence` of every failure, and fail at once while it is fenced. */
export function fencedConnector(connect: PeerClientFactory, fence: NodeFence): PeerClientFactory {
  return (address) => watched(connect(address), fence);
}

function watched(client: PeerClient, fence: NodeFence): PeerClient {
  // One wrapper per method, made on first use: every replica call goes through here.
  const wrappers = new Map<PropertyKey, (...args: unknown[]) => unknown>();
  const observe = (err: unknown): never => {
    fence.observe(err);
    throw err;
  };
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || prop === 'close') return value;
      let wrapper = wrappers.get(prop);
      if (wrapper === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        wrapper = (...args: unknown[]): unknown => {
          const refused = fence.refusal();
          if (refused !== undefined) return Promise.reject(refused);
          const result = fn.apply(target, args);
          return result instanceof Promise ? result.catch(observe) : result;
        };
        wrappers.set(prop, wrapper);
      }
      return wrapper;
    },
  });
}
