/**
 * The client's listing and batch calls against a real three-node cluster (N=2, so listings reach
 * across nodes): `keys` and `listKeys`, `getMany`, and a collection's `keys` and `entries`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { resolvers, TesseraClient, type TesseraError } from '../src/node.js';

let cluster: TestCluster;
let client: TesseraClient;

beforeAll(async () => {
  cluster = await startCluster(3, ['--n', '2']);
  client = new TesseraClient({ nodes: [cluster.nodes[0]!.url] });
}, 90_000);

afterAll(async () => {
  await client?.close();
  await cluster?.destroy();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('keys', () => {
  it('iterates every live key with a prefix once, across pages, without deleted keys', async () => {
    const keys = Array.from({ length: 75 }, (_, i) => `list/${i}`);
    await Promise.all(keys.map((key, i) => client.put(key, i)));
    await client.put('elsewhere/1', 1);
    for (const key of keys.slice(0, 10)) await client.delete(key);
    const listed = await collect(client.keys({ prefix: 'list/', pageSize: 20 }));
    expect(listed.length).toBe(new Set(listed).size);
    expect(listed.sort()).toEqual(keys.slice(10).sort());
  });

  it('answers one page at a time with listKeys', async () => {
    const first = await client.listKeys({ prefix: 'list/', pageSize: 7 });
    expect(first.keys.length).toBeLessThanOrEqual(7);
    expect(first.cursor).toEqual(expect.any(String));
    const second = await client.listKeys({ prefix: 'list/', pageSize: 7, cursor: first.cursor });
    for (const key of second.keys) expect(first.keys).not.toContain(key);
  });

  it('refuses bad options without a round trip, and a bad cursor with the node’s 400', async () => {
    const bad = async (p: Promise<unknown>): Promise<TesseraError> =>
      p.then(
        () => Promise.reject(new Error('no failure')),
        (e: TesseraError) => e,
      );
    expect((await bad(client.listKeys({ pageSize: 0 }))).code).toBe('INVALID_ARGUMENT');
    expect((await bad(client.listKeys({ pageSize: 1001 }))).code).toBe('INVALID_ARGUMENT');
    const err = await bad(client.listKeys({ prefix: 'list/', cursor: 'garbage' }));
    expect(err.httpStatus).toBe(400);
    expect(['BAD_REQUEST', 'INVALID_CURSOR']).toContain(err.code);
  });
});

describe('getMany', () => {
  it('answers found and missing keys in order, in batches of 100', async () => {
    const keys = Array.from({ length: 130 }, (_, i) => `many/${i}`);
    await Promise.all(keys.slice(0, 120).map((key, i) => client.put(key, { i })));
    await client.delete('many/0');
    const asked = [...keys, 'many/0', 'many/5'];
    const results = await client.getMany<{ i: number }>(asked);
    expect(results.map((r) => r.key)).toEqual(asked);
    for (const [i, result] of results.entries()) {
      expect(result.error).toBeUndefined();
      if (result.error !== undefined) continue;
      const key = asked[i]!;
      const n = Number(key.slice('many/'.length));
      if (key === 'many/0' || n >= 120) expect(result.siblings).toEqual([]);
      else expect(result.siblings).toEqual([{ i: n }]);
    }
    const found = results[5]!;
    if (found.error !== undefined) throw found.error;
    await client.put('many/5', { i: 50 }, { context: found.context });
    expect((await client.get('many/5')).siblings).toEqual([{ i: 50 }]);
  });

  it('answers an empty list without a call, and checks keys first', async () => {
    expect(await client.getMany([])).toEqual([]);
    const err = await client.getMany(['ok', '']).catch((e: TesseraError) => e);
    expect((err as TesseraError).code).toBe('INVALID_KEY');
  });
});

describe('a collection', () => {
  it('lists its ids and reads its entries validated and merged', async () => {
    const carts = client.collection('carts', {
      schema: z.array(z.string()),
      resolver: resolvers.union<string[]>(),
    });
    for (let i = 0; i < 12; i++) await carts.put(`c${i}`, [`item-${i}`]);
    // Two concurrent versions of one cart: entries merges them with the resolver.
    await client.put(carts.key('c0'), ['extra']);
    await carts.delete('c11');
    await client.put('cartsandmore/x', ['not in the collection']);
    const ids = await collect(carts.keys({ pageSize: 5 }));
    expect(ids.sort()).toEqual(Array.from({ length: 11 }, (_, i) => `c${i}`).sort());
    const entries = await collect(carts.entries({ pageSize: 5 }));
    expect(entries.map((e) => e.id).sort()).toEqual(ids);
    const c0 = entries.find((e) => e.id === 'c0')!;
    expect(c0.siblings).toBe(2);
    expect([...(c0.value ?? [])].sort()).toEqual(['extra', 'item-0']);
    expect(entries.find((e) => e.id === 'c3')!.value).toEqual(['item-3']);
  });

  it('throws INVALID_STORED_VALUE from entries for a value that breaks the schema', async () => {
    const nums = client.collection('nums', { schema: z.number() });
    await nums.put('one', 1);
    await client.put(nums.key('bad'), 'not a number');
    const err = await collect(nums.entries()).catch((e: TesseraError) => e);
    expect((err as TesseraError).code).toBe('INVALID_STORED_VALUE');
  });
});
