/**
 * The store's Fastify app: catalog, carts, stock and checkout in Tessera, the cluster panel, the
 * page. `createStore` wires it to a list of nodes (each started with `--strong stock,orders`),
 * stocks the shop if it has no stock yet, and answers; the launcher (main.ts) starts the nodes first.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { pino } from 'pino';
import { Journal } from './cart/journal.js';
import { CartService } from './cart/service.js';
import { Catalog } from './catalog/catalog.js';
import { StoreAccess } from './cluster/access.js';
import { ClusterControl } from './cluster/control.js';
import { NodeDirectory, type NodeSpec } from './cluster/directory.js';
import { ClusterStatus } from './cluster/status.js';
import { StrongAccess } from './cluster/strong-access.js';
import { registerCartRoutes } from './http/cart-routes.js';
import { registerClusterRoutes } from './http/cluster-routes.js';
import { registerErrorHandling } from './http/errors.js';
import { registerPages } from './http/pages.js';
import { registerReplicaRoutes } from './http/replica-routes.js';
import { OrderService } from './orders/service.js';
import { Stock } from './stock/stock.js';
import { StoryBook } from './story/book.js';
import { KeyLock } from './util/key-lock.js';

/** Largest request body: a cart change is a few dozen bytes. */
export const BODY_BYTES_MAX = 16 * 1024;

export interface StoreOptions {
  /** The Tessera nodes, with their processes when the store manages them. */
  readonly nodes: readonly NodeSpec[];
  /** A pino logger; default: JSON on stdout at level info. */
  readonly logger?: FastifyBaseLogger;
}

export async function createStore(options: StoreOptions): Promise<FastifyInstance> {
  const loggerInstance: FastifyBaseLogger = options.logger ?? pino({ level: 'info' });
  // Pages poll every second or two: log problems and actions, not every request.
  const app = Fastify({
    bodyLimit: BODY_BYTES_MAX,
    loggerInstance,
    logController: new LogController({ disableRequestLogging: true }),
  });
  // The API speaks JSON only; every other body is a 415, not a string for the routes to puzzle over.
  app.removeContentTypeParser('text/plain');
  const nodes = new NodeDirectory(options.nodes);
  const access = new StoreAccess(nodes);
  const strong = new StrongAccess(nodes);
  const catalog = new Catalog();
  const locks = new KeyLock();
  const control: ClusterControl = new ClusterControl(nodes, app.log, () => status.invalidate());
  const status = new ClusterStatus(nodes, () => control.lastSplitAt());
  const story = new StoryBook(
    () => control.current(),
    (id) => catalog.name(id),
  );
  const carts = new CartService({ access, catalog, journal: new Journal(), locks, story });
  const orders = new OrderService({ access, strong, catalog, carts, locks, story });
  const stock = new Stock(strong, catalog);
  try {
    const stocked = await stock.seed();
    if (stocked > 0) app.log.info({ products: stocked }, 'stocked the shop');
  } catch (err) {
    await nodes.close();
    throw err;
  }

  registerErrorHandling(app);
  registerCartRoutes(app, { catalog, carts, orders, stock });
  registerClusterRoutes(app, status, control);
  registerReplicaRoutes(app, nodes, catalog);
  await registerPages(app);
  app.addHook('onClose', async () => nodes.close());
  return app;
}
