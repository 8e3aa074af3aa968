/** update(), getValue() and collections against a one-node fake with real sibling semantics. */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cart, resolvers, TesseraClient, type TesseraError } from '../src/index.js';
import { SiblingStore } from './sibling-store.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function setup() {
  const store = new SiblingStore();
  const client = new TesseraClient({
    nodes: [store.url],
    transport: store,
    routing: false,
    backoff: { baseMs: 1, maxMs: 2 },
  });
  clients.push(client);
  return { store, client };
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

describe('update', () => {
  it('applies fn to undefined for a new key, then to the value, writing with the read context', async () => {
    const { store, client } = setup();
    expect(await client.update<number>('n', (v) => (v ?? 0) + 1)).toMatchObject({ value: 1 });
    expect(await client.update<number>('n', (v) => (v ?? 0) + 1)).toMatchObject({ value: 2 });
    expect(store.versions.get('n')?.map((v) => v.value)).toEqual([2]);
  });

  it('throws SIBLINGS_UNRESOLVED over siblings without a resolver, and never writes', async () => {
    const { store, client } = setup();
    store.add('k', ['a']);
    store.add('k', ['b']);
    const err = await failure(client.update<string[]>('k', (v) => [...(v ?? []), 'c']));
    expect(err).toMatchObject({ code: 'SIBLINGS_UNRESOLVED', key: 'k', details: { siblings: 2 } });
    expect(store.puts).toBe(0);
    expect((await failure(client.getValue('k'))).code).toBe('SIBLINGS_UNRESOLVED');
  });

  it('merges siblings with the resolver and replaces them with one value', async () => {
    const { store, client } = setup();
    store.add('k', ['a']);
    store.add('k', ['b']);
    const result = await client.update<string[]>('k', (v) => [...(v ?? []), 'c'], {
      resolver: resolvers.union(),
    });
    expect(result.value).toEqual(['a', 'b', 'c']);
    expect(store.versions.get('k')?.map((v) => v.value)).toEqual([['a', 'b', 'c']]);
    expect(await client.getValue('k')).toMatchObject({ value: ['a', 'b', 'c'], siblings: 1 });
  });

  it('starts over after a transient failure, and after TOO_MANY_SIBLINGS', async () => {
    const { store, client } = setup();
    store.script.push({ status: 503, text: '{"error":{"code":"NODE_NOT_READY","message":"-"}}' });
    store.script.push({ status: 409, text: '{"error":{"code":"TOO_MANY_SIBLINGS","message":"-"}}' });
    const result = await client.update<string[]>('k', (v) => [...(v ?? []), 'x'], { retries: 3 });
    expect(result.value).toEqual(['x']);
  });

  it('re-applies an idempotent fn after a write that may have been applied, but not a non-idempotent one', async () => {
    const { store, client } = setup();
    // The first PUT reaches the store, then the connection drops.
    store.script.push('reset');
    const add = cart.add('apple', 1);
    // GET (read), PUT (reset: applied), GET, PUT.
    store.script.unshift({ status: 404, text: '{"error":{"code":"NOT_FOUND","message":"-"}}' });
    await client.update('cart', add, { resolver: resolvers.cart() });
    const stored = await client.getValue('cart', { resolver: resolvers.cart() });
    expect(cart.quantity(stored.value as never, 'apple')).toBe(1);

    store.script.push({ status: 404, text: '{"error":{"code":"NOT_FOUND","message":"-"}}' }, 'reset');
    const err = await failure(client.update<number>('counter', (v) => (v ?? 0) + 1, { idempotent: false }));
    expect(err).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
  });

  it('wraps a resolver that throws into RESOLVER_FAILED naming the key', async () => {
    const { store, client } = setup();
    store.add('k', 1);
    store.add('k', 2);
    const err = await failure(
      client.update<number>('k', (v) => v ?? 0, {
        resolver: () => {
          throw new Error('boom');
        },
      }),
    );
    expect(err).toMatchObject({ code: 'RESOLVER_FAILED', key: 'k' });
  });
});

describe('collections', () => {
  const Profile = z.object({ name: z.string(), tags: z.array(z.string()).default([]) });

  it('validates values going in, with the parsed value stored', async () => {
    const { store, client } = setup();
    const profiles = client.collection('profile', { schema: Profile });
    await profiles.put('ada', { name: 'Ada', tags: [] });
    expect(store.versions.get('profile/ada')?.[0]?.value).toEqual({ name: 'Ada', tags: [] });
    const err = await failure(profiles.put('bob', { name: 42 } as never));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', key: 'profile/bob' });
    expect(err.message).toMatch(/name/);
  });

  it('names the key of a stored value that fails the schema', async () => {
    const { store, client } = setup();
    store.add('profile/eve', { name: ['not', 'a', 'string'] });
    const profiles = client.collection('profile', { schema: Profile });
    const err = await failure(profiles.get('eve'));
    expect(err).toMatchObject({ code: 'INVALID_STORED_VALUE', key: 'profile/eve' });
    expect(err.message).toContain('"profile/eve"');
  });

  it('merges with the collection resolver, and types update', async () => {
    const { store, client } = setup();
    const carts = client.collection('cart', { schema: cart.schema, resolver: resolvers.cart() });
    await carts.update('42', cart.add('apple', 2));
    store.add('cart/42', cart.add('pear')(undefined));
    const read = await carts.get('42');
    expect(read.siblings).toBe(2);
    expect(cart.items(read.value)).toEqual([
      { item: 'apple', quantity: 2 },
      { item: 'pear', quantity: 1 },
    ]);
    const updated = await carts.update('42', cart.remove('apple'));
    expect(cart.items(updated.value)).toEqual([{ item: 'pear', quantity: 1 }]);
    expect(await carts.delete('42')).toMatchObject({ found: true });
    expect(await carts.get('42')).toMatchObject({ value: undefined, siblings: 0 });
  });
});
