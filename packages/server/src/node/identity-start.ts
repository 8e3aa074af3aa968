/**
 * Identity checks of a node that starts on a used data dir (identity fencing, docs/operations.md):
 * its seeds must belong to the data dir's cluster, and a member record from before identities
 * existed takes this data dir's identity.
 */
import { type ClusterState, findMember, TesseraError, withMember } from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import { advertised, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { createPeerClient } from '../transport/grpc-client.js';

/** Seeds asked at most, one after another, until one answers. */
const SEEDS_ASKED_MAX = 3;
const SEED_CALL_TIMEOUT_MS = 2_000;

/**
 * Refuses to start when a seed answers that it belongs to another cluster than this data dir: a
 * data dir of another cluster would otherwise run as a cluster of its own. Seeds that do not
 * answer (all restarting at once) leave the start alone: seed gossip asks again later.
 */
export async function checkSeedsCluster(
  config: Pick<Config, 'nodeId' | 'seeds' | 'peer' | 'advertisePeer' | 'http' | 'advertiseHttp' | 'dataDir'>,
  state: ClusterState,
  log: Logger,
  security: PeerClientSecurity,
): Promise<void> {
  const self = [config.peer, advertised(config).peer];
  const seeds = config.seeds.filter((s) => !self.includes(s)).slice(0, SEEDS_ASKED_MAX);
  for (const seed of seeds) {
    const client = createPeerClient(seed, { logger: log, security });
    try {
      await client.gossip(state, SEED_CALL_TIMEOUT_MS);
      return;
    } catch (err) {
      if (TesseraError.is(err) && err.code === 'CLUSTER_MISMATCH') throw mismatch(config, state, seed, err);
      log.debug({ seed, err }, 'seed did not confirm the cluster at start');
    } finally {
      client.close();
    }
  }
}

function mismatch(
  config: Pick<Config, 'dataDir'>,
  state: ClusterState,
  seed: string,
  err: TesseraError,
): TesseraError {
  const theirs =
    typeof err.details?.clusterId === 'string' ? `cluster ${err.details.clusterId}` : 'another cluster';
  return new TesseraError(
    'CLUSTER_MISMATCH',
    `The data dir ${config.dataDir} belongs to cluster ${state.clusterId}, but seed ${seed} belongs to ${theirs}. To add this node to the seed's cluster, start it with an empty --data-dir; to run the data dir's own cluster, drop --seed ${seed} (or name a node of cluster ${state.clusterId}).`,
    { clusterId: state.clusterId, seed, seedCluster: err.details?.clusterId ?? null },
  );
}

/**
 * A member record written before identities existed takes this data dir's identity (generation 0,
 * below any rejoin's), so later rejoins under the id supersede it.
 */
export async function adoptIdentity(
  view: ClusterView,
  state: ClusterState,
  self: string,
): Promise<ClusterState> {
  const me = findMember(state, self);
  if (me === undefined || me.status === 'removed' || me.identity !== undefined) return state;
  const adopted = withMember(state, {
    ...me,
    identity: { tag: view.tag, generation: 0 },
    incarnation: me.incarnation + 1,
  });
  await view.set(adopted);
  return adopted;
}
