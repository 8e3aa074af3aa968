/** The cluster state a starting node works from: the one it persisted, or a new or joined one. */
import { randomUUID } from 'node:crypto';
import { type ClusterState, createRing, findMember, type Member, withMember } from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import { advertised, type Config, PARTITIONS_DEFAULT } from '../config.js';
import type { Logger } from '../logger.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { checkSettings, nodeSettingsOf, requireSettings, settingsOf } from './cluster-settings.js';
import { adoptIdentity, checkSeedsCluster } from './identity-start.js';
import { joinThroughSeeds } from './join.js';

/**
 * This node as a member, as it asks to be admitted: its advertised addresses, not its bind
 * addresses, and its data dir's identity `tag` (the admitting seed sets the generation).
 */
export function selfMember(
  config: Pick<Config, 'nodeId' | 'http' | 'peer' | 'advertiseHttp' | 'advertisePeer'>,
  tag: string,
): Member {
  return {
    nodeId: config.nodeId,
    ...advertised(config),
    status: 'member',
    incarnation: 1,
    identity: { tag, generation: 1 },
  };
}

/** Loads the persisted state; on a new data dir, creates a cluster or joins the seeds' one. */
export async function loadClusterState(
  config: Config,
  view: ClusterView,
  log: Logger,
  security: PeerClientSecurity,
): Promise<ClusterState> {
  const loaded = await view.load(config.nodeId);
  if (loaded !== undefined) await checkSeedsCluster(config, loaded, log, security);
  const state =
    loaded === undefined
      ? await firstState(config, view, log, security)
      : await adoptIdentity(
          view,
          await readvertise(config, view, await checkSettings(config, view, loaded, log), log),
          config.nodeId,
        );
  log.info(
    { clusterId: state.clusterId, ringVersion: state.ring.version, members: state.members.length },
    'cluster state ready',
  );
  return state;
}

/**
 * A restart with other addresses (a restored data dir on new ports, a new --advertise-*): this
 * node's own record gets them under a higher incarnation, so gossip carries them to every peer.
 */
async function readvertise(
  config: Config,
  view: ClusterView,
  state: ClusterState,
  log: Logger,
): Promise<ClusterState> {
  const me = findMember(state, config.nodeId);
  const now = advertised(config);
  if (me === undefined || me.status === 'removed' || (me.http === now.http && me.peer === now.peer))
    return state;
  const updated = withMember(state, { ...me, ...now, incarnation: me.incarnation + 1 });
  await view.set(updated);
  log.info(
    { from: { http: me.http, peer: me.peer }, to: now, incarnation: me.incarnation + 1 },
    'advertising new addresses',
  );
  return updated;
}

async function firstState(
  config: Config,
  view: ClusterView,
  log: Logger,
  security: PeerClientSecurity,
): Promise<ClusterState> {
  const self = selfMember(config, view.tag);
  // A seed list shared by every node (a StatefulSet's, a config file's) names this node too: it is
  // not a seed to join through. A node whose only seeds are itself creates the cluster.
  const seeds = config.seeds.filter((s) => s !== config.peer && s !== self.peer);
  if (seeds.length > 0) {
    const joined = await joinThroughSeeds(
      self,
      seeds,
      log.child({ component: 'join' }),
      security,
      nodeSettingsOf(config),
    );
    // The seed checked the settings; one of an older version may not have (Q, the floor).
    requireSettings(config, joined);
    await view.set(joined);
    return joined;
  }
  const partitions = config.partitions ?? PARTITIONS_DEFAULT;
  const created: ClusterState = {
    clusterId: randomUUID(),
    settings: settingsOf(config),
    ring: createRing(partitions, config.nodeId),
    members: [self],
  };
  // This node's own --durability may be weaker than the --durability-floor it gives the cluster.
  requireSettings(config, created);
  await view.set(created);
  log.info({ clusterId: created.clusterId, partitions, ...created.settings }, 'created a new cluster');
  return created;
}
