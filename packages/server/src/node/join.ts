/** Joining a cluster through its seeds (paper 4.8.2), retrying while they come up. */
import type { ClusterState, Member, NodeSettings } from '@tessera/core';
import { TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerClientSecurity } from '../transport/credentials.js';
import { createPeerClient } from '../transport/grpc-client.js';

const ATTEMPTS_MAX = 60;
const RETRY_MS = 1_000;
const CALL_TIMEOUT_MS = 5_000;

export async function joinThroughSeeds(
  self: Member,
  seeds: readonly string[],
  log: Logger,
  security?: PeerClientSecurity,
  settings?: NodeSettings,
): Promise<ClusterState> {
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS_MAX; attempt++) {
    for (const seed of seeds) {
      const client = createPeerClient(seed, { logger: log, ...(security === undefined ? {} : { security }) });
      try {
        const state = await client.join(self, CALL_TIMEOUT_MS, settings);
        log.info({ seed, clusterId: state.clusterId }, 'joined the cluster');
        return state;
      } catch (err) {
        lastError = err;
        // A refusal is final; an unreachable or starting seed is worth another try.
        if (TesseraError.is(err) && (err.code === 'JOIN_REFUSED' || err.code === 'CLUSTER_MISMATCH'))
          throw err;
        log.warn({ seed, err }, 'seed not reachable yet; retrying');
      } finally {
        client.close();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  throw new TesseraError(
    'PEER_UNAVAILABLE',
    `No seed (${seeds.join(', ')}) admitted this node after ${ATTEMPTS_MAX} attempts. Check that a seed is running and reachable.`,
    {
      cause: TesseraError.is(lastError) ? lastError.code : String(lastError),
    },
  );
}
