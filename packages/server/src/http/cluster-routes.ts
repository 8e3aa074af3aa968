/** Cluster, admin, health and metrics endpoints (see docs/api.md). */
import { partitionCounts, partitionOf, preferenceList } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import type { TesseraNode } from '../node/node.js';
import { joinBodySchema, parseInput, removeBodySchema, validateKey } from './schemas.js';

export type MemberView = 'up' | 'down' | 'joining' | 'leaving';

export function registerClusterRoutes(app: FastifyInstance, node: TesseraNode): void {
  app.get('/health', async () => ({ status: 'ok', nodeId: node.nodeId }));

  app.get('/metrics', async (_req, reply) => {
    node.metrics.peersDown.set(node.peers.health().filter((p) => p.down).length);
    node.metrics.ringVersion.set(node.view.require().ring.version);
    return reply.type(node.metrics.registry.contentType).send(await node.metrics.registry.metrics());
  });

  app.get('/v1/preference-list/:key', async (req) => {
    const key = validateKey((req.params as { key?: unknown }).key);
    const ring = node.view.require().ring;
    const partition = partitionOf(ring.partitionCount, key);
    return { key, partition, n: node.config.n, nodes: preferenceList(ring, partition) };
  });

  app.get('/v1/status', async () => status(node));

  app.get('/v1/status/repair', async () => ({
    nodeId: node.nodeId,
    hints: { held: Object.fromEntries(node.hints.targets()), total: node.hints.totals() },
    handoff: node.handoff.stats(),
    admission: node.admission.stats(),
    antiEntropy: node.antiEntropy.stats(),
  }));

  app.post('/v1/admin/join', async (req) => {
    const { seed } = parseInput(joinBodySchema, req.body, 'body');
    const state = await node.membership.join(seed);
    return { nodeId: node.nodeId, clusterId: state.clusterId, status: 'joining' };
  });

  app.post('/v1/admin/leave', async () => {
    const member = await node.membership.leave();
    return { nodeId: member.nodeId, status: member.status };
  });

  app.post('/v1/admin/remove', async (req) => {
    const { nodeId } = parseInput(removeBodySchema, req.body, 'body');
    const member = await node.membership.remove(nodeId);
    return { nodeId: member.nodeId, status: member.status };
  });
}

export function status(node: TesseraNode) {
  const state = node.view.require();
  const counts = partitionCounts(state.ring);
  const health = new Map(node.peers.health().map((h) => [h.nodeId, h]));
  return {
    nodeId: node.nodeId,
    pid: process.pid,
    clusterId: state.clusterId,
    n: node.config.n,
    r: node.config.r,
    w: node.config.w,
    partitionCount: state.ring.partitionCount,
    ringVersion: state.ring.version,
    ring: {
      partitionCount: state.ring.partitionCount,
      version: state.ring.version,
      owners: state.ring.owners,
    },
    pending: node.membership.pending() ?? null,
    transfers: node.membership.transfers(),
    retiring: node.membership.retirer.retiring ?? null,
    retireExpired: node.membership.retirer.expired,
    incarnation: node.incarnation,
    history: state.history ?? [],
    storage: node.engineKind,
    durability: node.config.durability,
    members: state.members
      .filter((m) => m.status !== 'removed')
      .map((m) => {
        const view: MemberView =
          m.status === 'joining' || m.status === 'leaving'
            ? m.status
            : health.get(m.nodeId)?.down
              ? 'down'
              : 'up';
        return {
          nodeId: m.nodeId,
          http: m.http,
          peer: m.peer,
          status: view,
          partitions: counts.get(m.nodeId) ?? 0,
        };
      }),
  };
}
