/**
 * `stored`, the receipt of a write: what put, delete and update (of the client and of a
 * collection) answer about how the write was stored, as the node sent it; absent from a node too
 * old to send one, and left out (the write still succeeded) when it is not a receipt. The
 * in-memory client reports every replica, or the acks `memory.storeOn()` scripts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cart, resolvers, TesseraClient } from '../src/index.js';
import { parseReceipt } from '../src/kv.js';
import { createMemoryClient } from '../src/testing/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../src/transport/types.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

const SPLIT = [
  { node: 'n0', as: 'replica' },
  { node: 'n3', as: 'hint', for: 'n1' },
] as const;

describe('the in-memory client', () => {
  it('reports every replica by default, with the w asked', async () => {
    const client = createMemoryClient();
    const put = await client.put('k', 1);
    expect(put.stored).toEqual({
      acks: [
        { node: 'n0', as: 'replica' },
        { node: 'n1', as: 'replica' },
        { node: 'n2', as: 'replica' },
      ],
      replicas: 3,
      n: 3,
      w: 2,
    });
    expect((await client.put('k', 2, { w: 3, context: put.context })).stored?.w).toBe(3);
    expect((await client.delete('k')).stored?.replicas).toBe(3);
    expect((await client.delete('k')).stored).toBeUndefined();
  });

  it('reports the acks storeOn() scripts, through put, update, delete and collections', async () => {
    const client = createMemoryClient();
    client.memory.storeOn(SPLIT);
    const expected = { acks: SPLIT, replicas: 1, n: 3, w: 1 };
    expect((await client.put('k', 1, { w: 1 })).stored).toEqual(expected);
    const updated = await client.update<number>('k', (v) => (v ?? 0) + 1, { w: 1 });
    expect(updated).toEqual({ value: 2, context: expect.any(String), stored: expected });
    const carts = client.collection('cart', { schema: cart.schema, resolver: resolvers.cart() });
    expect((await carts.update('u1', cart.add('apple'), { w: 1 })).stored).toEqual(expected);
    expect((await carts.delete('u1', { w: 1 })).stored).toEqual(expected);
    client.memory.storeOn();
    expect((await client.put('k', 3)).stored?.replicas).toBe(3);
    expect(client.memory.siblings('k')).toEqual([2, 3]);
  });
});

/** A node that answers every write with `body`. */
function nodeAnswering(body: unknown): TesseraClient {
  const transport: Transport = {
    async request(_req: TransportRequest): Promise<TransportResponse> {
      return { status: 200, text: JSON.stringify(body) };
    },
  };
  const client = new TesseraClient({ nodes: ['http://node.test'], transport, routing: false });
  clients.push(client);
  return client;
}

describe('a write answer', () => {
  it('carries the receipt the node sent', async () => {
    const stored = { acks: SPLIT, replicas: 1, n: 3, w: 1 };
    const put = await nodeAnswering({ context: 'c1', stored }).put('k', 1);
    expect(put).toEqual({ context: 'c1', stored });
    const deleted = await nodeAnswering({ context: 'c2', stored }).delete('k', { context: 'c1' });
    expect(deleted).toEqual({ context: 'c2', found: true, stored });
  });

  it('has no stored from a node that sends none', async () => {
    const put = await nodeAnswering({ context: 'c1' }).put('k', 1);
    expect(put).toEqual({ context: 'c1' });
    expect('stored' in put).toBe(false);
  });

  it('leaves out a receipt it cannot read: the write still succeeded', async () => {
    const put = await nodeAnswering({ context: 'c1', stored: { acks: 'n0' } }).put('k', 1);
    expect(put).toEqual({ context: 'c1' });
  });
});

describe('parseReceipt', () => {
  it('counts the replicas from the acks', () => {
    const acks = [
      { node: 'n0', as: 'replica' },
      { node: 'n2', as: 'replica' },
      { node: 'n4', as: 'hint', for: 'n1' },
    ];
    expect(parseReceipt({ acks, replicas: 7, n: 3, w: 2 })).toEqual({ acks, replicas: 2, n: 3, w: 2 });
  });

  it.each([
    ['not an object', 'n0'],
    ['no acks', { n: 3, w: 2 }],
    ['an ack without node', { acks: [{ as: 'replica' }], n: 3, w: 2 }],
    ['an unknown kind of ack', { acks: [{ node: 'n0', as: 'copy' }], n: 3, w: 2 }],
    ['a hint without the replica it is for', { acks: [{ node: 'n3', as: 'hint' }], n: 3, w: 2 }],
    ['no n', { acks: [], w: 2 }],
    ['w = 0', { acks: [], n: 3, w: 0 }],
  ])('is undefined for %s', (_what, stored) => {
    expect(parseReceipt(stored)).toBeUndefined();
  });
});
