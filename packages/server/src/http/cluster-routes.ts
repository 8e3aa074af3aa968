/** Cluster, admin, health and metrics endpoints (see docs/api.md). */
import { partitionOf, preferenceList, type Ring } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { NodeMetrics } from '../node/metrics.js';
import type { RepairView, StatusView } from '../node/status.js';
import type { MembershipService } from '../transfer/membership-service.js';
import { joinBodySchema, parseInput, removeBodySchema, validateKey } from './schemas.js';

/** What the cluster routes use of a node. */
export interface ClusterRouteDeps {
  readonly config: Pick<Config, 'nodeId' | 'n'>;
  /** The ring keys are placed on now. */
  readonly ring: () => Ring;
  readonly status: () => StatusView;
  readonly repairStatus: () => RepairView;
  readonly metrics: Pick<NodeMetrics, 'registry'>;
  readonly membership: Pick<MembershipService, 'join' | 'leave' | 'remove'>;
  /** While true, /health answers 503 `draining` so that load balancers stop sending (node/drain.ts). */
  readonly drain?: { readonly draining: boolean };
}

export function registerClusterRoutes(app: FastifyInstance, deps: ClusterRouteDeps): void {
  const { nodeId } = deps.config;
  app.get('/health', async (_req, reply) =>
    deps.drain?.draining === true
      ? reply.code(503).send({ status: 'draining', nodeId })
      : { status: 'ok', nodeId },
  );

  app.get('/metrics', async (_req, reply) => {
    const { registry } = deps.metrics;
    return reply.type(registry.contentType).send(await registry.metrics());
  });

  app.get('/v1/preference-list/:key', async (req) => {
    const key = validateKey((req.params as { key?: unknown }).key);
    const ring = deps.ring();
    const partition = partitionOf(ring.partitionCount, key);
    return { key, partition, n: deps.config.n, nodes: preferenceList(ring, partition) };
  });

  app.get('/v1/status', async () => deps.status());
  app.get('/v1/status/repair', async () => deps.repairStatus());

  app.post('/v1/admin/join', async (req) => {
    const { seed } = parseInput(joinBodySchema, req.body, 'body');
    const state = await deps.membership.join(seed);
    return { nodeId, clusterId: state.clusterId, status: 'joining' };
  });

  app.post('/v1/admin/leave', async () => {
    const member = await deps.membership.leave();
    return { nodeId: member.nodeId, status: member.status };
  });

  app.post('/v1/admin/remove', async (req) => {
    const { nodeId: removed } = parseInput(removeBodySchema, req.body, 'body');
    const member = await deps.membership.remove(removed);
    return { nodeId: member.nodeId, status: member.status };
  });
}
