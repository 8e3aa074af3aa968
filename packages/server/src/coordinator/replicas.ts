/**
 * One way to reach a replica, whether it is this node (the local store) or a peer (gRPC):
 * the coordinator never cares which. Outcomes feed the local failure detector.
 */
import { decodePeerState, encodeState, type KeyState, type NodeId } from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import type { HintStore } from '../storage/hint-store.js';
import type { ReplicaStore } from '../storage/replica-store.js';

export class Replicas {
  constructor(
    private readonly self: NodeId,
    private readonly store: ReplicaStore,
    private readonly hints: HintStore,
    private readonly peers: PeerDirectory,
  ) {}

  isDown(node: NodeId): boolean {
    return node !== this.self && this.peers.isDown(node);
  }

  async read(node: NodeId, key: string, timeoutMs: number): Promise<KeyState | undefined> {
    if (node === this.self) return this.store.read(key);
    const bytes = await this.peers.call(node, (c) => c.read(key, timeoutMs));
    return bytes === undefined ? undefined : decodePeerState(bytes);
  }

  /**
   * Merges `state` into `node`'s copy; with `hint`, `node` keeps it as a hint for that down replica
   * instead. `encoded` is `encodeState(state)`, made once per write.
   */
  async replicate(
    node: NodeId,
    key: string,
    state: KeyState,
    encoded: Uint8Array,
    timeoutMs: number,
    hint?: NodeId,
  ): Promise<void> {
    if (node === this.self) {
      if (hint === undefined || hint === this.self) await this.store.merge(key, state);
      else await this.hints.add(hint, key, state);
      return;
    }
    await this.peers.call(node, (c) => c.replicate(key, encoded, timeoutMs, hint));
  }

  /** Sends a merged state to `node` without waiting (read repair); failures only mark the peer. */
  repair(node: NodeId, key: string, state: KeyState, timeoutMs: number): void {
    this.replicate(node, key, state, encodeState(state), timeoutMs).catch(() => {});
  }
}
