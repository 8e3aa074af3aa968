/**
 * The catalog, stock, cart and checkout API the page calls. Every route checks its input before
 * touching Tessera.
 */
import type { FastifyInstance } from 'fastify';
import type { CartService } from '../cart/service.js';
import type { Catalog } from '../catalog/catalog.js';
import type { OrderService } from '../orders/service.js';
import type { Stock } from '../stock/stock.js';
import { askedNode, asker, knownProduct, parse, schemas } from './input.js';

export interface CartRoutesDeps {
  readonly catalog: Catalog;
  readonly carts: CartService;
  readonly orders: OrderService;
  readonly stock: Stock;
}

export function registerCartRoutes(app: FastifyInstance, deps: CartRoutesDeps): void {
  const { catalog, carts, orders, stock } = deps;

  app.get('/api/catalog', async () => ({ products: catalog.all() }));

  app.get('/api/stock', async (req) => stock.levels(askedNode(req)));

  app.get('/api/carts/:cartId', async (req) => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    return carts.view(cartId, asker(req));
  });

  app.post('/api/carts/:cartId/items', async (req) => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    const body = parse(schemas.add, req.body, 'body of add');
    const productId = knownProduct(catalog, body.productId);
    return carts.change(cartId, asker(req), { kind: 'add', productId, quantity: body.quantity });
  });

  app.put('/api/carts/:cartId/items/:productId', async (req) => {
    const params = parse(schemas.itemParams, req.params, 'path');
    const { quantity } = parse(schemas.set, req.body, 'body of set');
    const productId = knownProduct(catalog, params.productId);
    return carts.change(params.cartId, asker(req), { kind: 'set', productId, quantity });
  });

  app.delete('/api/carts/:cartId/items/:productId', async (req) => {
    const params = parse(schemas.itemParams, req.params, 'path');
    const productId = knownProduct(catalog, params.productId);
    return carts.change(params.cartId, asker(req), { kind: 'remove', productId });
  });

  app.post('/api/carts/:cartId/save', async (req) => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    parse(schemas.empty, req.body, 'body of save');
    return carts.change(cartId, asker(req), { kind: 'save' });
  });

  app.post('/api/carts/:cartId/checkout', async (req, reply) => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    const { idempotencyKey } = parse(schemas.checkout, req.body, 'body of checkout');
    const result = await orders.checkout(cartId, idempotencyKey, asker(req));
    return reply.status(result.replayed ? 200 : 201).send(result);
  });

  app.get('/api/carts/:cartId/orders', async (req) => {
    const { cartId } = parse(schemas.cartParams, req.params, 'cart id');
    return { orders: await orders.list(cartId, askedNode(req)) };
  });
}
