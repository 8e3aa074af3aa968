/** Strong collections (client.strong) against a one-node fake of the strong-key API. */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type StandardSchemaV1,
  type StrongCollection,
  TesseraClient,
  type TesseraError,
} from '../src/index.js';
import { error, StrongStore } from './strong-store.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function setup(options: { retries?: number } = {}) {
  const store = new StrongStore();
  const client = new TesseraClient({
    nodes: [store.url],
    transport: store,
    routing: false,
    backoff: { baseMs: 1, maxMs: 2 },
    ...options,
  });
  clients.push(client);
  return { store, client, stock: client.strong<number>('stock') };
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

const unavailable = error(503, 'STRONG_UNAVAILABLE', {});

describe('keys and reads', () => {
  it('names keys namespace/id and checks namespaces and ids', () => {
    const { client, stock } = setup();
    expect(stock.key('apple')).toBe('stock/apple');
    expect(stock.deleteAction('a/b').key).toBe('stock/a/b');
    expect(() => client.strong('no spaces')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => client.strong('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => stock.key('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('reads undefined for a key with no value, asking with ?missing=ok, then the value and version', async () => {
    const { store, stock } = setup();
    expect(await stock.get('apple')).toBeUndefined();
    expect(store.log[0]).toMatchObject({ method: 'GET', path: '/v1/kv/stock%2Fapple' });
    expect(store.log[0]!.query.get('missing')).toBe('ok');
    store.write('stock/apple', 7);
    expect(await stock.get('apple')).toEqual({ value: 7, version: '1' });
  });

  it('reads a 404 NOT_FOUND with a version as no value, and a plain key as NOT_STRONG_KEY', async () => {
    const { store, client, stock } = setup();
    store.script.push(error(404, 'NOT_FOUND', { version: '4' }));
    expect(await stock.get('gone')).toBeUndefined();
    const plain = client.strong<number>('cart');
    expect(await failure(plain.get('x'))).toMatchObject({ code: 'NOT_STRONG_KEY', key: 'cart/x' });
    const put = await failure(plain.put('x', 1));
    expect(put).toMatchObject({ code: 'NOT_STRONG_KEY', maybeApplied: true });
    expect(put.message).toContain('applied');
  });

  it('rejects an answer without a version as BAD_RESPONSE', async () => {
    const { store, stock } = setup();
    store.script.push({
      status: 200,
      text: '{"key":"stock/a","value":1,"version":"one","consistency":"strong"}',
    });
    expect(await failure(stock.get('a'))).toMatchObject({ code: 'BAD_RESPONSE' });
  });
});

describe('conditional writes', () => {
  it('sends If-Match for ifVersion, If-None-Match for ifAbsent, and neither without a condition', async () => {
    const { store, stock } = setup();
    expect(await stock.put('a', 1)).toEqual({ version: '1' });
    expect(await stock.put('a', 2, { ifVersion: '1' })).toEqual({ version: '2' });
    expect(await stock.put('b', 3, { ifAbsent: true })).toEqual({ version: '1' });
    expect(await stock.delete('a', { ifVersion: '2' })).toEqual({ version: '3' });
    expect(await stock.delete('b')).toEqual({ version: '2' });
    const headers = store.writes().map((w) => w.headers);
    expect(headers).toEqual([{}, { 'if-match': '"1"' }, { 'if-none-match': '*' }, { 'if-match': '"2"' }, {}]);
    expect(store.writes().map((w) => w.body)).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }, {}, {}]);
  });

  it('refuses a bad condition before sending anything', async () => {
    const { store, stock } = setup();
    expect(await failure(stock.put('a', 1, { ifVersion: '1', ifAbsent: true }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await failure(stock.put('a', 1, { ifVersion: 'v1' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await failure(stock.delete('a', { ifVersion: '-1' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await failure(stock.put('a', undefined as never))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(store.log).toEqual([]);
  });

  it('maps 412 to PRECONDITION_FAILED with details.currentVersion, not retried, not applied', async () => {
    const { store, stock } = setup();
    store.write('stock/a', 1);
    store.write('stock/a', 2);
    const err = await failure(stock.put('a', 3, { ifVersion: '1' }));
    expect(err).toMatchObject({
      code: 'PRECONDITION_FAILED',
      httpStatus: 412,
      key: 'stock/a',
      maybeApplied: false,
      details: { currentVersion: '2' },
    });
    expect(await failure(stock.put('a', 3, { ifAbsent: true }))).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(store.writes()).toHaveLength(2);
    expect(store.entries.get('stock/a')).toEqual({ value: 2, version: 2 });
  });

  it('does not resend a write without condition that may have applied, like a plain put', async () => {
    const { store, stock } = setup();
    store.script.push('reset');
    expect(await failure(stock.put('a', 1))).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
    store.script.push(unavailable);
    expect(await failure(stock.delete('a'))).toMatchObject({
      code: 'STRONG_UNAVAILABLE',
      maybeApplied: true,
    });
    expect(store.writes()).toHaveLength(2);
  });

  it('resends a conditional write; a resend after it applied answers PRECONDITION_FAILED, maybeApplied', async () => {
    const { store, stock } = setup();
    store.script.push('drop', unavailable);
    expect(await stock.put('a', 1, { ifAbsent: true })).toEqual({ version: '1' });
    expect(store.writes()).toHaveLength(3);
    store.script.push('reset');
    const err = await failure(stock.put('a', 2, { ifVersion: '1' }));
    expect(err).toMatchObject({ code: 'PRECONDITION_FAILED', maybeApplied: true, attempts: 2 });
    expect(store.entries.get('stock/a')).toEqual({ value: 2, version: 2 });
  });

  it('retries a read after STRONG_UNAVAILABLE', async () => {
    const { store, stock } = setup();
    store.write('stock/a', 5);
    store.script.push(unavailable);
    expect(await stock.get('a')).toEqual({ value: 5, version: '1' });
    expect(store.log).toHaveLength(2);
  });
});

describe('update', () => {
  it('creates with ifAbsent, then writes with the read version', async () => {
    const { store, stock } = setup();
    expect(await stock.update('a', (n) => (n ?? 0) + 1)).toEqual({ value: 1, version: '1' });
    expect(await stock.update('a', (n) => (n ?? 0) + 1)).toEqual({ value: 2, version: '2' });
    expect(store.writes().map((w) => w.headers)).toEqual([{ 'if-none-match': '*' }, { 'if-match': '"1"' }]);
  });

  it('starts over when a racing writer wins, and applies fn to the winner', async () => {
    const { store, stock } = setup();
    store.write('stock/a', 10);
    let races = 3;
    store.beforeWrite = (key) => {
      if (races-- > 0) store.write(key, (store.entries.get(key)?.value as number) - 1);
    };
    const seen: (number | undefined)[] = [];
    const result = await stock.update('a', (n) => {
      seen.push(n);
      return (n ?? 0) - 1;
    });
    expect(seen).toEqual([10, 9, 8, 7]);
    expect(result).toEqual({ value: 6, version: '5' });
    expect(store.entries.get('stock/a')).toEqual({ value: 6, version: 5 });
  });

  it('gives up after `retries` rounds with PRECONDITION_FAILED', async () => {
    const { store, stock } = setup();
    store.write('stock/a', 1);
    store.beforeWrite = (key) => store.write(key, 0);
    const err = await failure(stock.update('a', (n) => (n ?? 0) + 1, { retries: 2 }));
    expect(err).toMatchObject({ code: 'PRECONDITION_FAILED', maybeApplied: false });
    expect(err.message).toContain('gave up after 3 rounds');
    expect(store.writes()).toHaveLength(3);
  });

  it('deletes when fn returns undefined, with the read version; leaves an absent key as is', async () => {
    const { store, stock } = setup();
    store.write('stock/a', 1);
    expect(await stock.update('a', () => undefined)).toEqual({ value: undefined, version: '2' });
    expect(store.writes('DELETE')[0]!.headers).toEqual({ 'if-match': '"1"' });
    expect(await stock.update('a', () => undefined)).toEqual({ value: undefined, version: '2' });
    expect(store.writes()).toHaveLength(1);
  });

  it('ends with maybeApplied after a write that may have applied, unless idempotent', async () => {
    const { store, stock } = setup({ retries: 0 });
    store.write('stock/a', 1);
    // The GET is answered, then the PUT is applied and its connection drops.
    store.script.push('pass', 'reset');
    const err = await failure(stock.update('a', (n) => (n ?? 0) + 1));
    expect(err).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true });
    expect(store.entries.get('stock/a')).toEqual({ value: 2, version: 2 });

    store.script.push('pass', 'reset');
    const result = await stock.update('a', () => 5, { idempotent: true });
    expect(result).toEqual({ value: 5, version: '4' });
  });
});

describe('schemas', () => {
  const Item = z.object({ name: z.string(), count: z.number().int().default(0) });

  it('infers the type from the schema, stores its output, and rejects bad values before sending', async () => {
    const { store, client } = setup();
    const items = client.strong('stock', { schema: Item });
    expectTypeOf(items).toEqualTypeOf<StrongCollection<{ name: string; count: number }>>();
    await items.put('a', { name: 'apple' } as never);
    expect(store.entries.get('stock/a')?.value).toEqual({ name: 'apple', count: 0 });
    const err = await failure(items.put('b', { name: 7 } as never));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', key: 'stock/b' });
    expect(err.message).toContain('strong namespace "stock"');
    expect(store.writes()).toHaveLength(1);
  });

  it('names a stored value that does not match as INVALID_STORED_VALUE, in get and update', async () => {
    const { store, client } = setup();
    const items = client.strong('stock', { schema: Item });
    store.write('stock/bad', { name: ['x'] });
    expect(await failure(items.get('bad'))).toMatchObject({ code: 'INVALID_STORED_VALUE', key: 'stock/bad' });
    expect(await failure(items.update('bad', (v) => v))).toMatchObject({ code: 'INVALID_STORED_VALUE' });
    expect(store.writes()).toHaveLength(0);
  });

  it('validates put actions now, and refuses a schema that validates asynchronously', () => {
    const { client } = setup();
    const items = client.strong('stock', { schema: Item });
    expect(items.putAction('a', { name: 'x' } as never, { ifAbsent: true })).toEqual({
      type: 'put',
      key: 'stock/a',
      value: { name: 'x', count: 0 },
      condition: { ifAbsent: true },
    });
    expect(() => items.putAction('a', { name: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    const slow: StandardSchemaV1<unknown, number> = {
      '~standard': { version: 1, vendor: 'test', validate: async (value) => ({ value: value as number }) },
    };
    expect(() => client.strong('stock', { schema: slow }).putAction('a', 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
