/** Builds the membership-change machinery of a node (transfer/*) from its parts. */
import { type Member, TesseraError } from '@tessera/core';
import type { AdmissionController } from '../background/admission.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Gossip } from '../cluster/gossip.js';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { StorageEngine } from '../storage/engine.js';
import type { HintStore } from '../storage/hint-store.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { StrongService } from '../strong/service.js';
import { CursorStore } from '../transfer/cursor.js';
import { type MembershipDeps, MembershipService } from '../transfer/membership-service.js';
import { TransferReceiver } from '../transfer/receiver.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { nodeSettingsOf } from './cluster-settings.js';
import { joinThroughSeeds } from './join.js';

export interface MembershipParts {
  readonly config: Config;
  readonly view: ClusterView;
  readonly store: ReplicaStore;
  readonly hints: Pick<HintStore, 'totals'>;
  readonly engine: StorageEngine;
  readonly peers: PeerDirectory;
  readonly admission: AdmissionController;
  readonly gossip: Gossip;
  readonly strong: Pick<StrongService, 'adopt'>;
  readonly self: Member;
  readonly log: Logger;
  /** TLS and identity for joins (transport/credentials.ts). */
  readonly security?: PeerClientSecurity;
  /** The node's clock (offset under fault injection). */
  readonly now: () => number;
  /** What this node served as a transfer source (node/peer-serving.ts). */
  readonly sent?: MembershipDeps['sent'];
}

export function startMembership(p: MembershipParts): MembershipService {
  const { config } = p;
  const log = p.log.child({ component: 'membership' });
  const isDown = (node: string): boolean => node !== config.nodeId && p.peers.isDown(node);
  const changed = (): void => p.gossip.spread();
  const receiver = new TransferReceiver({
    self: config.nodeId,
    n: config.n,
    view: p.view,
    store: p.store,
    cursors: new CursorStore(p.engine, config.durability === 'fsync'),
    gate: p.admission,
    isDown,
    pageKeys: config.transferPageKeys,
    pageCost: Math.min(config.transferPageKeys, config.backgroundRateMinPerSec),
    timeoutMs: config.transferTimeoutMs,
    startDelayMs: config.transferStartDelayMs,
    now: p.now,
    log,
    changed,
    peers: p.peers,
    adoptStrong: (partition, nextRingVersion, replicas) =>
      p.strong.adopt(partition, nextRingVersion, replicas),
  });
  const membership = new MembershipService({
    self: config.nodeId,
    n: config.n,
    view: p.view,
    store: p.store,
    receiver,
    ...(p.sent === undefined ? {} : { sent: p.sent }),
    isDown,
    intervalMs: config.transferIntervalMs,
    retireDelayMs: config.retireDelayMs,
    tombstoneGraceMs: config.tombstoneGraceMs,
    joinConfirmTimeoutMs: config.joinConfirmTimeoutMs,
    handOver: async (node, key, state) => {
      const client = p.peers.client(node);
      if (client === undefined)
        throw new TesseraError('PEER_UNAVAILABLE', `Node ${node} is not a known member.`, { peer: node });
      await client.replicate(key, state, config.peerTimeoutMs);
    },
    hintsHeld: () => p.hints.totals().count,
    now: p.now,
    log,
    changed,
    // A node joins with the ring it has: the seed refuses another Q before admitting it.
    joinThrough: (seed) =>
      joinThroughSeeds(p.self, [seed], log, p.security, {
        ...nodeSettingsOf(config),
        partitions: p.view.require().ring.partitionCount,
      }),
  });
  membership.start();
  return membership;
}
