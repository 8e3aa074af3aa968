/**
 * One way to reach a replica, whether it is this node (the local store) or a peer (gRPC):
 * the coordinator never cares which. Outcomes feed the local failure detector.
 */
import { decodePeerState, encodeState, type KeyState, type NodeId } from '@tessera/core';
import type { PeerDirectory } from '../cluster/peers.js';
import type { HintStore } from '../storage/hint-store.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import { lazyVersion, type StoredVersion, sameBytes } from '../storage/stored-version.js';
import { promised } from '../util/promised.js';

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
   * The replica's version as bytes. A peer's bytes equal to `known` (this node's own version, when
   * it answered first) are taken as they are; others are decoded and checked now, so a bad reply
   * fails this replica's call rather than the whole read.
   */
  readVersion(
    node: NodeId,
    key: string,
    timeoutMs: number,
    known: () => StoredVersion | undefined = () => undefined,
  ): Promise<StoredVersion | undefined> {
    if (node === this.self) {
      return this.store.readVersion(key).then((own) => {
        own?.state(); // corrupt here fails this replica's call, as for a peer (cached: decoded once)
        return own;
      });
    }
    return this.peers
      .call(node, (c) => c.read(key, timeoutMs))
      .then((bytes) => {
        if (bytes === undefined) return undefined;
        const version = lazyVersion(bytes, decodePeerState);
        const local = known();
        if (local === undefined || !sameBytes(local.bytes, bytes)) version.state();
        return version;
      });
  }

  /**
   * Merges `state` into `node`'s copy; with `hint`, `node` keeps it as a hint for that down replica
   * instead. `encoded` is `encodeState(state)`, made once per write.
   */
  replicate(
    node: NodeId,
    key: string,
    state: KeyState,
    encoded: Uint8Array,
    timeoutMs: number,
    hint?: NodeId,
  ): Promise<void> {
    // Promise chains rather than an async frame: every put runs this once per peer.
    // A failure is always a rejection, never a throw (callers chain `.catch`).
    if (node === this.self) {
      const local = promised<unknown>(() =>
        hint === undefined || hint === this.self
          ? this.store.merge(key, state)
          : this.hints.add(hint, key, state),
      );
      return local.then(nothing);
    }
    return this.peers.call(node, (c) => c.replicate(key, encoded, timeoutMs, hint));
  }

  /** Sends a merged state to `node` without waiting (read repair); failures only mark the peer. */
  repair(node: NodeId, key: string, state: KeyState, timeoutMs: number): void {
    this.replicate(node, key, state, encodeState(state), timeoutMs).catch(() => {});
  }
}

function nothing(): void {}
