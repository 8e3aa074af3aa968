/**
 * Stocking the shop at start, against a fake node (a few lines of node:http speaking the strong-key
 * routes): only products without stock get their starting count, in one transaction of ifAbsent
 * puts, so a restart resets nothing; and nodes that do not declare `stock` strong stop the store
 * with a message that says how to start them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../src/server/app.js';

interface Seen {
  readonly path: string;
  readonly body: {
    keys?: string[];
    actions?: { type: string; key: string; value: unknown; condition: unknown }[];
  };
}

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  server = undefined;
});

/** A node that answers the strong routes from `stocked` (or refuses them as plain keys). */
async function fakeNode(
  stocked: Record<string, number> | 'not-strong',
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = raw === '' ? {} : (JSON.parse(raw) as Seen['body']);
      seen.push({ path, body });
      const send = (status: number, json: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      };
      if (stocked === 'not-strong') {
        send(400, { error: { code: 'NOT_STRONG_KEY', message: 'stock/mug is in no strong namespace' } });
      } else if (path === '/v1/transactions/get') {
        send(200, {
          items: (body.keys ?? []).map((key) => {
            const left = stocked[key.slice('stock/'.length)];
            return left === undefined
              ? { key, found: false, version: '0' }
              : { key, found: true, value: { left, lastSoldAt: null }, version: '3' };
          }),
        });
      } else if (path === '/v1/transactions') {
        send(200, {
          committed: true,
          versions: Object.fromEntries((body.actions ?? []).map((a) => [a.key, '1'])),
        });
      } else {
        send(404, { error: { code: 'NOT_FOUND', message: path } });
      }
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const open = (url: string) => createStore({ nodes: [{ id: 'n0', url }], logger: pino({ level: 'silent' }) });

describe('stocking the shop at start', () => {
  it('writes the starting count of the products that have none, in one transaction of ifAbsent puts', async () => {
    const node = await fakeNode({ mug: 4, kettle: 0, notebook: 7, headphones: 1, backpack: 2, record: 3 });
    const app = await open(node.url);
    await app.close();
    const writes = node.seen.filter((s) => s.path === '/v1/transactions');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.body.actions!.map((a) => [a.type, a.key, a.value, a.condition])).toEqual([
      ['put', 'stock/lamp', { left: 1, lastSoldAt: null }, { ifAbsent: true }],
      ['put', 'stock/fern', { left: 8, lastSoldAt: null }, { ifAbsent: true }],
      ['put', 'stock/camera', { left: 2, lastSoldAt: null }, { ifAbsent: true }],
      ['put', 'stock/watch', { left: 2, lastSoldAt: null }, { ifAbsent: true }],
    ]);
  });

  it('writes nothing when every product has stock (a restart)', async () => {
    const all = {
      mug: 1,
      kettle: 1,
      lamp: 0,
      fern: 1,
      notebook: 1,
      headphones: 1,
      backpack: 1,
      camera: 1,
      record: 1,
      watch: 1,
    };
    const node = await fakeNode(all);
    await (await open(node.url)).close();
    expect(node.seen.map((s) => s.path)).toEqual(['/v1/transactions/get']);
  });

  it('refuses to start on nodes that do not declare stock strong, and says how to start them', async () => {
    const node = await fakeNode('not-strong');
    await expect(open(node.url)).rejects.toThrow(/start every node with --strong stock,orders/);
  });
});
