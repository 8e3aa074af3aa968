import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cart } from '../cart/index.js';
import { TesseraError } from '../errors.js';
import { counter } from '../resolvers/counter.js';
import { resolvers } from '../resolvers/index.js';
import { createMemoryClient, type MemoryClient } from './index.js';

describe('createMemoryClient()', () => {
  it('is a TesseraClient with real sibling semantics: blind writes become siblings, a context resolves them', async () => {
    const client = createMemoryClient();
    await client.put('k', ['apple']);
    await client.put('k', ['pear']);
    const read = await client.get<string[]>('k');
    expect(read.siblings).toEqual([['apple'], ['pear']]);
    await client.put('k', ['apple', 'pear'], { context: read.context });
    expect((await client.get('k')).siblings).toEqual([['apple', 'pear']]);
    expect(client.memory.calls.map((c) => `${c.op} ${c.outcome}`)).toEqual([
      'put 200',
      'put 200',
      'get 200',
      'put 200',
      'get 200',
    ]);
  });

  it('keeps a write that a stale context did not see, and deletes leave a context to write over', async () => {
    const client = createMemoryClient();
    const { context } = await client.put('k', 1);
    await client.put('k', 2, { context }); // replaces 1
    await client.put('k', 3, { context }); // did not see 2: a sibling of it
    expect(client.memory.siblings('k')).toEqual([2, 3]);
    const deleted = await client.delete('k');
    expect(deleted.found).toBe(true);
    const after = await client.get('k');
    expect(after.siblings).toEqual([]);
    expect(after.context).toBeDefined();
    expect(await client.delete('k')).toEqual({ context: undefined, found: false });
    await client.put('k', 4, { context: after.context });
    expect(client.memory.siblings('k')).toEqual([4]);
    await expect(client.put('k', 5, { context: 'c1.forged.x' })).rejects.toMatchObject({
      code: 'INVALID_CONTEXT',
      httpStatus: 400,
    });
  });

  it('makes siblings from a concurrent writer in the middle of an update', async () => {
    const client = createMemoryClient();
    const other = cart.add('pear')(undefined);
    client.memory.before('put', () => client.memory.write('cart/1', other), { key: 'cart/1' });
    await client.update('cart/1', cart.add('apple'), { resolver: resolvers.cart() });
    expect(client.memory.siblings('cart/1')).toHaveLength(2);
    const { value } = await client.getValue('cart/1', { resolver: resolvers.cart() });
    expect(cart.items(value)).toEqual([
      { item: 'apple', quantity: 1 },
      { item: 'pear', quantity: 1 },
    ]);
  });

  it('fails calls once, or until cleared, as a cluster would', async () => {
    const client = createMemoryClient({ retries: 0 });
    client.memory.fail('get', 'INSUFFICIENT_REPLICAS');
    await expect(client.get('k')).rejects.toMatchObject({ code: 'INSUFFICIENT_REPLICAS', httpStatus: 503 });
    await expect(client.get('k')).resolves.toMatchObject({ siblings: [] });
    client.memory.fail('*', 'NODE_UNREACHABLE', { times: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 3; i++)
      await expect(client.put('k', i)).rejects.toMatchObject({ code: 'NODE_UNREACHABLE' });
    client.memory.clearFaults();
    await client.put('k', 'ok');
    expect(client.memory.siblings('k')).toEqual(['ok']);
  });

  it('retries what the real client retries: a get after a 503, not a put that may have landed', async () => {
    const client = createMemoryClient();
    client.memory.fail('get', 'PEER_UNAVAILABLE');
    await expect(client.get('k')).resolves.toMatchObject({ siblings: [] });
    expect(client.memory.calls.map((c) => c.outcome)).toEqual([503, 404]);
    client.memory.fail('put', 'CONNECTION_FAILED', { applied: true });
    const err = await client.put('k', 1).catch((e: unknown) => e);
    expect(TesseraError.is(err, 'CONNECTION_FAILED')).toBe(true);
    expect((err as TesseraError).maybeApplied).toBe(true);
    expect(client.memory.siblings('k')).toEqual([1]);
  });

  it('lets update() start over after a write that landed but failed, applying the change once', async () => {
    const client = createMemoryClient();
    client.memory.fail('put', 'INSUFFICIENT_REPLICAS', { applied: true });
    const { value } = await client.update('likes', counter.increment('device-1', 5), {
      resolver: counter.resolver,
    });
    expect(counter.value(value)).toBe(5);
    expect(counter.value(client.memory.siblings<never>('likes')[0])).toBe(5);
    expect(client.memory.calls.filter((c) => c.op === 'put')).toHaveLength(2);
  });

  it('times out like a node that does not answer, after the client timeoutMs', async () => {
    const client = createMemoryClient({ timeoutMs: 20, retries: 0 });
    client.memory.fail('get', 'REQUEST_TIMEOUT');
    await expect(client.get('k')).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });

  it('enforces the node limits and sends Retry-After when asked', async () => {
    const client = createMemoryClient({ siblingsMax: 2, valueBytesMax: 10, retries: 0 });
    await client.put('k', 1);
    await client.put('k', 2);
    await expect(client.put('k', 3)).rejects.toMatchObject({ code: 'TOO_MANY_SIBLINGS', httpStatus: 409 });
    await expect(client.put('big', 'x'.repeat(20))).rejects.toMatchObject({ code: 'VALUE_TOO_LARGE' });
    client.memory.fail('put', 'OVERLOADED', { retryAfterMs: 2000 });
    await expect(client.put('k2', 1)).rejects.toMatchObject({ code: 'OVERLOADED', retryAfterMs: 2000 });
  });

  it('shares one node between clients (two devices) and serves typed collections', async () => {
    const laptop = createMemoryClient();
    const phone = createMemoryClient({ memory: laptop.memory });
    const Profile = z.object({ name: z.string() });
    const profiles = (c: MemoryClient) =>
      c.collection('profile', { schema: Profile, resolver: resolvers.lww() });
    const a = await laptop.get('profile/ada');
    const b = await phone.get('profile/ada');
    await laptop.put('profile/ada', { name: 'Ada' }, { context: a.context });
    await phone.put('profile/ada', { name: 'Ada L.' }, { context: b.context });
    expect((await profiles(laptop).get('ada')).siblings).toBe(2);
    expect((await profiles(phone).get('ada')).value).toEqual({ name: 'Ada L.' });
    await expect(profiles(phone).put('bob', { name: 3 } as never)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(laptop.memory.store.keys()).toEqual(['profile/ada']);
    await laptop.close();
    await expect(laptop.get('x')).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});
