/**
 * Fault injection, a test and demo tool (off unless the node runs with --fault-injection): make
 * this node drop its traffic to listed peers. Blocking each side from the other on every node
 * splits the cluster; DELETE heals it. `crashMidWrite` kills the node (SIGKILL) in the middle of
 * the next write it coordinates: sent to the other replicas, not stored here, never answered.
 * See docs/operations.md.
 */
import { TesseraError } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PeerDirectory } from '../cluster/peers.js';
import type { Config } from '../config.js';
import type { FaultSwitches } from '../node/fault-switches.js';
import { parseInput } from './schemas.js';

export const faultsBodySchema = z
  .object({
    blockPeers: z.array(z.string().min(1).max(64)).max(1024),
    /** Kill -9 in the middle of the next write this node coordinates (after its fan-out, before its own copy). */
    crashMidWrite: z.boolean().optional(),
  })
  .strict();

/** What the fault-injection routes use of a node. */
export interface FaultRouteDeps {
  readonly config: Pick<Config, 'nodeId' | 'faultInjection'>;
  /** Links to peers, dropped on demand. */
  readonly peers: Pick<PeerDirectory, 'block' | 'unblock' | 'blockedPeers'>;
  readonly faults: Pick<FaultSwitches, 'armCrashMidWrite' | 'crashMidWriteArmed'>;
}

export function registerFaultRoutes(app: FastifyInstance, deps: FaultRouteDeps): void {
  const enabled = (): void => {
    if (!deps.config.faultInjection) {
      throw new TesseraError(
        'FAULT_INJECTION_DISABLED',
        'Fault injection is off on this node. Start it with --fault-injection to use it (tests and demos only).',
      );
    }
  };
  const current = () => ({
    nodeId: deps.config.nodeId,
    blockPeers: deps.peers.blockedPeers(),
    crashMidWrite: deps.faults.crashMidWriteArmed,
  });

  app.get('/v1/admin/faults', async () => {
    enabled();
    return current();
  });
  app.post('/v1/admin/faults', async (req) => {
    enabled();
    const body = parseInput(faultsBodySchema, req.body, 'body');
    deps.peers.unblock();
    deps.peers.block(body.blockPeers);
    if (body.crashMidWrite === true) deps.faults.armCrashMidWrite();
    req.log.warn(body, 'fault injection: dropping traffic to peers');
    return current();
  });
  app.delete('/v1/admin/faults', async (req) => {
    enabled();
    deps.peers.unblock();
    req.log.warn('fault injection: healed');
    return current();
  });
}
