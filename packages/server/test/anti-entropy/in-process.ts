/**
 * Anti-entropy between replicas in one process, without a network: each call goes straight to the
 * other node's store and `MerkleResponder`, as the gRPC server would route it. For tests (see
 * test-cluster.ts); it counts the calls and the state bytes, and can take a node down.
 */
import { decodePeerState, type NodeId, TesseraError } from '@tessera/core';
import type { MerkleResponder } from '../../src/anti-entropy/responder.js';
import type { AntiEntropyClient, AntiEntropyPeers } from '../../src/anti-entropy/types.js';
import type { ReplicaStore } from '../../src/storage/replica-store.js';

export interface InProcessReplica {
  readonly store: ReplicaStore;
  readonly responder: MerkleResponder;
}

export interface CallCounts {
  read: number;
  replicate: number;
  merkleHashes: number;
  merkleKeys: number;
}

export class InProcessNetwork {
  readonly calls: CallCounts = { read: 0, replicate: 0, merkleHashes: 0, merkleKeys: 0 };
  readonly down = new Set<NodeId>();
  private readonly replicas = new Map<NodeId, InProcessReplica>();

  add(node: NodeId, replica: InProcessReplica): void {
    this.replicas.set(node, replica);
  }

  resetCalls(): void {
    Object.assign(this.calls, { read: 0, replicate: 0, merkleHashes: 0, merkleKeys: 0 });
  }

  /** The peers as `from` sees them: every other node, failing with PEER_UNAVAILABLE while down. */
  peersOf(from: NodeId): AntiEntropyPeers & { readonly failed: NodeId[] } {
    const failed: NodeId[] = [];
    return {
      failed,
      client: (node) => (node === from || !this.replicas.has(node) ? undefined : this.client(node)),
      isDown: () => false,
      markFailed: (node) => failed.push(node),
      markAlive: () => {},
    };
  }

  private client(node: NodeId): AntiEntropyClient {
    const target = (): InProcessReplica => {
      if (this.down.has(node)) throw new TesseraError('PEER_UNAVAILABLE', `Node ${node} is down.`);
      return this.replicas.get(node)!;
    };
    return {
      read: async (key) => {
        this.calls.read++;
        return target().store.readEncoded(key);
      },
      replicate: async (key, state) => {
        this.calls.replicate++;
        await target().store.merge(key, decodePeerState(state));
      },
      merkleHashes: async (partition, level, indices) => {
        this.calls.merkleHashes++;
        return target().responder.merkleHashes(partition, level, indices);
      },
      merkleKeys: async (request) => {
        this.calls.merkleKeys++;
        return target().responder.merkleKeys(request);
      },
    };
  }
}
