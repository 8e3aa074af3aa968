/**
 * The client against a real local cluster: three `tessera start` processes on loopback, N=3,
 * R=2, W=2 (the defaults). Clients use the Node entry (undici pool), as a Node app would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { type Cart, cart, resolvers, TesseraClient, type TesseraError } from '../src/node.js';

let cluster: TestCluster;
const clients: TesseraClient[] = [];

beforeAll(async () => {
  cluster = await startCluster(3);
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.destroy();
});

/** A client that knows one node (it learns the others from it). */
function client(node = 0): TesseraClient {
  const c = new TesseraClient({ nodes: [cluster.nodes[node]!.url] });
  clients.push(c);
  return c;
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

describe('siblings and contexts', () => {
  it('shows two blind puts from two clients as two siblings, with one context that resolves both', async () => {
    const alice = client(0);
    const bob = client(2);
    await alice.put('cart/blind', ['apple']);
    await bob.put('cart/blind', ['pear']);
    const read = await client(1).get<string[]>('cart/blind');
    expect(read.siblings.sort()).toEqual([['apple'], ['pear']]);
    expect(read.versions.map((v) => v.lastModified)).toEqual([expect.any(Date), expect.any(Date)]);
    expect(read.context).toEqual(expect.any(String));
    await alice.put('cart/blind', ['apple', 'pear'], { context: read.context });
    expect((await bob.get('cart/blind')).siblings).toEqual([['apple', 'pear']]);
  });

  it('keeps all 90 items when 6 clients each add 15 with update and resolvers.union(), concurrently', async () => {
    const key = 'set/concurrent';
    const sessions = Array.from({ length: 6 }, (_, c) => ({ id: c, client: client(c % 3) }));
    let sawSiblings = 0;
    const union = resolvers.union<string[]>();
    await Promise.all(
      sessions.map(async ({ id, client: c }) => {
        for (let i = 0; i < 15; i++) {
          await c.update<string[]>(key, (items) => [...(items ?? []), `c${id}-${i}`], {
            resolver: (siblings, versions) => {
              sawSiblings++;
              return union(siblings, versions);
            },
          });
        }
      }),
    );
    const { value } = await client(1).getValue<string[]>(key, { resolver: resolvers.union() });
    expect(value).toHaveLength(90);
    for (let c = 0; c < 6; c++) for (let i = 0; i < 15; i++) expect(value).toContain(`c${c}-${i}`);
    // The writers really were concurrent: some reads found siblings to merge.
    expect(sawSiblings).toBeGreaterThan(0);
  });

  it('refuses to update over siblings without a resolver, with SIBLINGS_UNRESOLVED, and writes nothing', async () => {
    const c = client(0);
    await c.put('doc/conflict', 'one');
    await client(1).put('doc/conflict', 'two');
    const err = await failure(c.update<string>('doc/conflict', (v) => `${v}!`));
    expect(err).toMatchObject({ code: 'SIBLINGS_UNRESOLVED', key: 'doc/conflict', details: { siblings: 2 } });
    expect((await c.get<string>('doc/conflict')).siblings.sort()).toEqual(['one', 'two']);
    const merged = await c.update<string>('doc/conflict', (v) => `${v}!`, { resolver: resolvers.lww() });
    expect((await c.get('doc/conflict')).siblings).toEqual([merged.value]);
  });

  it('reads a deleted key as no siblings with the tombstone context, which a put then supersedes', async () => {
    const c = client(2);
    const { context } = await c.put('doc/deleted', 1);
    expect(await c.delete('doc/deleted', { context })).toMatchObject({ found: true });
    const read = await c.get('doc/deleted');
    expect(read.siblings).toEqual([]);
    expect(read.context).toEqual(expect.any(String));
    await c.put('doc/deleted', 2, { context: read.context });
    expect((await c.get('doc/deleted')).siblings).toEqual([2]);
    expect(await c.delete('doc/never-written')).toEqual({ context: undefined, found: false });
  });

  it("carries the server's code, the HTTP status and the node that answered", async () => {
    const c = client(0);
    const err = await failure(c.put('doc/x', 1, { context: 'c1.tampered' }));
    expect(err).toMatchObject({ code: 'INVALID_CONTEXT', httpStatus: 400, maybeApplied: false });
    expect(cluster.nodes.map((n) => n.url)).toContain(err.node);
    expect(['n0', 'n1', 'n2']).toContain(err.nodeId);
  });
});

describe('the cart across concurrent sessions', () => {
  it('keeps every add and never resurrects a removal, where the paper’s union cart does', async () => {
    const c = client(0);
    const key = 'cart/sessions';
    await c.update(key, cart.add('apple'), { resolver: resolvers.cart() });
    // A session reads the cart, then stays away while others change it.
    const stale = await c.get<Cart>(key);
    await client(1).update(key, cart.remove('apple'), { resolver: resolvers.cart() });
    await client(2).update(key, cart.add('pear', 2), { resolver: resolvers.cart() });
    // It comes back and writes its own change on its stale copy: a concurrent sibling.
    await c.put(key, cart.add('fig')(stale.siblings[0]), { context: stale.context });
    const read = await c.get<Cart>(key);
    expect(read.siblings.length).toBe(2);
    const { value } = await c.getValue<Cart>(key, { resolver: resolvers.cart() });
    expect(cart.items(value)).toEqual([
      { item: 'fig', quantity: 1 },
      { item: 'pear', quantity: 2 },
    ]);

    // The same story with the paper's cart (a plain list merged by union) brings the apple back.
    const paper = 'cart/paper';
    await c.update<string[]>(paper, () => ['apple'], { resolver: resolvers.union() });
    const old = await c.get<string[]>(paper);
    await client(1).update<string[]>(paper, (v) => (v ?? []).filter((i) => i !== 'apple'));
    await client(2).update<string[]>(paper, (v) => [...(v ?? []), 'pear']);
    await c.put(paper, [...old.siblings[0]!, 'fig'], { context: old.context });
    const union = await c.getValue<string[]>(paper, { resolver: resolvers.union() });
    expect(union.value).toContain('apple');
  });

  it('works as a typed collection, and a stored value that fails the schema is an error naming its key', async () => {
    const c = client(1);
    const carts = c.collection('cart', { schema: cart.schema, resolver: resolvers.cart() });
    await Promise.all([carts.update('7', cart.add('apple')), carts.update('7', cart.add('pear'))]);
    const read = await carts.get('7');
    expect(cart.items(read.value).map((i) => i.item)).toEqual(['apple', 'pear']);

    const Profile = z.object({ name: z.string(), age: z.number().int().min(0) });
    const profiles = c.collection('profile', { schema: Profile });
    await profiles.put('ada', { name: 'Ada', age: 36 });
    expect((await profiles.get('ada')).value).toEqual({ name: 'Ada', age: 36 });
    await c.put('profile/bob', { name: 'Bob', age: 'old' });
    const err = await failure(profiles.get('bob'));
    expect(err).toMatchObject({ code: 'INVALID_STORED_VALUE', key: 'profile/bob' });
    expect(err.message).toMatch(/"profile\/bob".*age/);
  });
});
