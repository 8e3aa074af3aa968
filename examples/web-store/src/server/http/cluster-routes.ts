/** The cluster panel's API: the nodes and their links, stop and restart, split and heal. */
import type { FastifyInstance } from 'fastify';
import type { ClusterControl } from '../cluster/control.js';
import type { ClusterStatus } from '../cluster/status.js';
import { parse, schemas } from './input.js';

export function registerClusterRoutes(
  app: FastifyInstance,
  status: ClusterStatus,
  control: ClusterControl,
): void {
  app.get('/api/cluster', async () => status.view());

  app.post('/api/cluster/nodes/:nodeId/stop', async (req) => {
    const { nodeId } = parse(schemas.nodeParams, req.params, 'node id');
    await control.stop(nodeId);
    return status.view();
  });

  app.post('/api/cluster/nodes/:nodeId/start', async (req) => {
    const { nodeId } = parse(schemas.nodeParams, req.params, 'node id');
    await control.start(nodeId);
    return status.view();
  });

  app.post('/api/cluster/split', async (req) => {
    const { isolate } = parse(schemas.split, req.body, 'body of split');
    await control.isolate(isolate);
    return status.view();
  });

  app.post('/api/cluster/heal', async (req) => {
    parse(schemas.empty, req.body, 'body of heal');
    await control.heal();
    return status.view();
  });
}
