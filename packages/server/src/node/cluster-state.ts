/** The cluster state a starting node works from: the one it persisted, or a new or joined one. */
import { randomUUID } from 'node:crypto';
import { type ClusterState, createRing, type Member } from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { joinThroughSeeds } from './join.js';

/** This node as a member, as it asks to be admitted. */
export function selfMember(config: Pick<Config, 'nodeId' | 'http' | 'peer'>): Member {
  return { nodeId: config.nodeId, http: config.http, peer: config.peer, status: 'member', incarnation: 1 };
}

/** Loads the persisted state; on a new data dir, creates a cluster or joins the seeds' one. */
export async function loadClusterState(
  config: Config,
  view: ClusterView,
  log: Logger,
  security: PeerClientSecurity,
): Promise<ClusterState> {
  const state = (await view.load(config.nodeId)) ?? (await firstState(config, view, log, security));
  log.info(
    { clusterId: state.clusterId, ringVersion: state.ring.version, members: state.members.length },
    'cluster state ready',
  );
  return state;
}

async function firstState(
  config: Config,
  view: ClusterView,
  log: Logger,
  security: PeerClientSecurity,
): Promise<ClusterState> {
  const self = selfMember(config);
  if (config.seeds.length > 0) {
    const joined = await joinThroughSeeds(self, config.seeds, log.child({ component: 'join' }), security);
    await view.set(joined);
    return joined;
  }
  const created: ClusterState = {
    clusterId: randomUUID(),
    ring: createRing(config.partitions, config.nodeId),
    members: [self],
  };
  await view.set(created);
  log.info({ clusterId: created.clusterId, partitions: config.partitions }, 'created a new cluster');
  return created;
}
