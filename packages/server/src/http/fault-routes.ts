/**
 * Fault injection, a test and demo tool (off unless the node runs with --fault-injection): make
 * this node drop its traffic to listed peers. Blocking each side from the other on every node
 * splits the cluster; DELETE heals it. `crashMidWrite` kills the node (SIGKILL) in the middle of
 * the next write it coordinates: sent to the other replicas, not stored here, never answered;
 * `crashMidTransaction` kills it in the middle of the next transaction it coordinates.
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
    /** Kill -9 the next transaction this node coordinates, with its intents placed or just after its commit. */
    crashMidTransaction: z.enum(['after-intents', 'after-commit']).optional(),
  })
  .strict();

/** What the fault-injection routes use of a node. */
export interface FaultRouteDeps {
  readonly config: Pick<Config, 'nodeId' | 'faultInjection'>;
  /** Links to peers, dropped on demand. */
  readonly peers: Pick<PeerDirectory, 'block' | 'unblock' | 'blockedPeers'>;
  readonly faults: Pick<
    FaultSwitches,
    | 'armCrashMidWrite'
    | 'crashMidWriteArmed'
    | 'armCrashMidTransaction'
    | 'crashMidTransactionArmed'
    | 'disarm'
  >;
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
    crashMidTransaction: deps.faults.crashMidTransactionArmed ?? null,
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
    if (body.crashMidTransaction !== undefined) deps.faults.armCrashMidTransaction(body.crashMidTransaction);
    req.log.warn(body, 'fault injection: dropping traffic to peers');
    return current();
  });
  app.delete('/v1/admin/faults', async (req) => {
    enabled();
    deps.peers.unblock();
    deps.faults.disarm();
    req.log.warn('fault injection: healed');
    return current();
  });
}
