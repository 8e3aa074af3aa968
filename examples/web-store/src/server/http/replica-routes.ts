/** What each replica holds: every node's own copy of a cart, read without a quorum, compared. */
import type { FastifyInstance } from 'fastify';
import type { ReplicasView } from '../../shared/api.js';
import { compareReplicas } from '../cart/replicas.js';
import { cartKey } from '../cart/service.js';
import type { Catalog } from '../catalog/catalog.js';
import type { NodeDirectory } from '../cluster/directory.js';
import { localRead } from '../cluster/local-read.js';
import { parse, schemas } from './input.js';

export function registerReplicaRoutes(app: FastifyInstance, nodes: NodeDirectory, catalog: Catalog): void {
  app.get('/api/carts/:cartId/replicas', async (req): Promise<ReplicasView> => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    const observedAt = new Date().toISOString();
    const copies = await Promise.all(nodes.list().map((node) => localRead(node, cartKey(cartId))));
    return { cartId, observedAt, nodes: compareReplicas(copies, (id) => catalog.name(id)) };
  });
}
