/**
 * For the store's tests: one real three-node cluster (separate `tessera start` processes with
 * --fault-injection and --strong stock,orders) and the store in this process on a free port, wired
 * to those nodes as `pnpm start` wires them. Started once per test file.
 */

import { type Cart, cart, TesseraClient } from '@tessera/client';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { freePort, startCluster, type TestCluster, waitFor } from '../../../packages/server/test/helpers.js';
import { createStore } from '../src/server/app.js';
import { STRONG_NAMESPACES } from '../src/server/stock/stock.js';

export { freePort, waitFor };

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Harness {
  readonly cluster: TestCluster;
  readonly app: FastifyInstance;
  /** The store's base URL. */
  readonly url: string;
  /** A client of the cluster, to look at what is stored without going through the store. */
  readonly tessera: TesseraClient;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const cluster = await startCluster(3, ['--fault-injection', '--strong', STRONG_NAMESPACES.join(',')]);
  let app: FastifyInstance | undefined;
  try {
    app = await createStore({
      nodes: cluster.nodes.map((n) => ({ id: n.spec.nodeId, url: n.url, process: n })),
      logger: pino({ level: process.env.STORE_TEST_LOG ?? 'silent' }),
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const tessera = new TesseraClient({ nodes: cluster.nodes.map((n) => n.url), retries: 3 });
    const started = app;
    return {
      cluster,
      app: started,
      url,
      tessera,
      close: async () => {
        await tessera.close();
        await started.close();
        await cluster.destroy();
      },
    };
  } catch (err) {
    await app?.close();
    await cluster.destroy();
    throw err;
  }
}

/** The cart stored under `cart:<id>`, read from the cluster directly: its items per sibling. */
export async function storedCart(tessera: TesseraClient, cartId: string): Promise<unknown[]> {
  const read = await tessera.get<Cart>(`cart:${cartId}`);
  return read.siblings.map((s) => (cart.is(s) ? cart.items(s) : s));
}

export function newCartId(): string {
  return `t${Math.random().toString(36).slice(2, 12)}`;
}
