/** client.transact, client.transactGet and cancellationReasons against a fake of the strong-key API. */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CancellationReason,
  cancellationReasons,
  TesseraClient,
  TesseraError,
  type TransactAction,
} from '../src/index.js';
import { error, json, StrongStore } from './strong-store.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function setup() {
  const store = new StrongStore();
  const client = new TesseraClient({
    nodes: [store.url],
    transport: store,
    routing: false,
    backoff: { baseMs: 1, maxMs: 2 },
  });
  clients.push(client);
  return { store, client, stock: client.strong<number>('stock'), orders: client.strong<string>('orders') };
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

interface Sent {
  clientRequestToken: string;
  actions: unknown[];
}

const sent = (store: StrongStore): Sent[] =>
  store.log.filter((l) => l.path === '/v1/transactions').map((l) => l.body as Sent);

describe('transact', () => {
  it('commits every action and answers each key version; builders make the actions', async () => {
    const { store, client, stock, orders } = setup();
    store.write('stock/apple', 3);
    const result = await client.transact([
      stock.putAction('apple', 2, { ifVersion: '1' }),
      orders.putAction('o1', 'apple', { ifAbsent: true }),
      stock.checkAction('pear', { ifAbsent: true }),
      stock.deleteAction('fig'),
    ]);
    expect(result).toEqual({
      versions: { 'stock/apple': '2', 'orders/o1': '1', 'stock/pear': '0', 'stock/fig': '1' },
    });
    expect(sent(store)[0]!.actions).toEqual([
      { type: 'put', key: 'stock/apple', value: 2, condition: { ifVersion: '1' } },
      { type: 'put', key: 'orders/o1', value: 'apple', condition: { ifAbsent: true } },
      { type: 'conditionCheck', key: 'stock/pear', condition: { ifAbsent: true } },
      { type: 'delete', key: 'stock/fig' },
    ]);
    expect(store.log.at(-1)).toMatchObject({ method: 'POST', path: '/v1/transactions' });
  });

  it('sends the same token on every retry of a call, a new one on the next call, and yours if given', async () => {
    const { store, client, stock } = setup();
    store.script.push('drop', error(503, 'STRONG_UNAVAILABLE', {}));
    await client.transact([stock.putAction('a', 1)]);
    await client.transact([stock.putAction('a', 2)]);
    await client.transact([stock.putAction('a', 3)], { token: 'order-42_retry' });
    const tokens = sent(store).map((s) => s.clientRequestToken);
    expect(tokens).toHaveLength(5);
    expect(tokens[0]).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    expect(tokens[3]).not.toBe(tokens[0]);
    expect(tokens[4]).toBe('order-42_retry');
  });

  it('answers a retry after the first attempt committed with the first outcome, applied once', async () => {
    const { store, client, stock } = setup();
    store.script.push('reset');
    expect(await client.transact([stock.putAction('a', 1)])).toEqual({ versions: { 'stock/a': '1' } });
    expect(store.entries.get('stock/a')).toEqual({ value: 1, version: 1 });
    expect(sent(store)).toHaveLength(2);
  });

  it('reports a cancellation after a dropped attempt as definite: maybeApplied false', async () => {
    const { store, client, stock } = setup();
    store.write('stock/a', 1);
    store.script.push('reset');
    const err = await failure(client.transact([stock.putAction('a', 5, { ifAbsent: true })]));
    expect(err).toMatchObject({ code: 'TRANSACTION_CANCELED', maybeApplied: false, attempts: 2 });
  });

  it('gives the token in the error when every attempt may have committed', async () => {
    const { store, client, stock } = setup();
    store.script.push('reset', 'drop', 'drop');
    const err = await failure(client.transact([stock.putAction('a', 1)]));
    expect(err).toMatchObject({ code: 'CONNECTION_FAILED', maybeApplied: true, attempts: 3 });
    const token = sent(store)[0]!.clientRequestToken;
    expect(err.details?.clientRequestToken).toBe(token);
    expect(err.message).toContain(token);
    // Sent again with that token: the first outcome, not a second write.
    expect(await client.transact([stock.putAction('a', 1)], { token })).toEqual({
      versions: { 'stock/a': '1' },
    });
    expect(store.entries.get('stock/a')?.version).toBe(1);
  });

  it('throws TRANSACTION_CANCELED with typed reasons naming each action key', async () => {
    const { store, client, stock } = setup();
    store.write('stock/a', 1);
    store.write('stock/a', 2);
    const err = await failure(
      client.transact([
        stock.putAction('a', 0, { ifVersion: '1' }),
        stock.putAction('b', 1, { ifAbsent: true }),
      ]),
    );
    expect(err).toMatchObject({ code: 'TRANSACTION_CANCELED', httpStatus: 409, maybeApplied: false });
    const reasons = cancellationReasons(err);
    expectTypeOf(reasons).toEqualTypeOf<CancellationReason[] | undefined>();
    expect(reasons).toEqual([
      { code: 'ConditionalCheckFailed', currentVersion: '2', key: 'stock/a' },
      { code: 'None', key: 'stock/b' },
    ]);
    const first = reasons![0]!;
    if (first.code === 'ConditionalCheckFailed') expectTypeOf(first.currentVersion).toEqualTypeOf<string>();
    expect(err.message).toContain('stock/a: condition failed (version 2)');
    expect(store.entries.has('stock/b')).toBe(false);
  });

  it('reads reasons it does not know as Unknown, and none from other errors', () => {
    const canceled = new TesseraError('TRANSACTION_CANCELED', 'x', {
      details: { cancellationReasons: [{ code: 'TransactionConflict' }, { code: 'Throttled' }, 'junk'] },
    });
    expect(cancellationReasons(canceled)).toEqual([
      { code: 'TransactionConflict', key: undefined },
      { code: 'Unknown', reported: { code: 'Throttled' }, key: undefined },
      { code: 'Unknown', reported: 'junk', key: undefined },
    ]);
    expect(
      cancellationReasons(new TesseraError('PRECONDITION_FAILED', 'x', { details: {} })),
    ).toBeUndefined();
    expect(cancellationReasons(new TesseraError('TRANSACTION_CANCELED', 'x'))).toBeUndefined();
    expect(cancellationReasons(new Error('x'))).toBeUndefined();
  });

  it('checks the actions before sending anything', async () => {
    const { store, client, stock } = setup();
    const put = (key: string, value: unknown): TransactAction => ({ type: 'put', key, value });
    const cases: [TransactAction[], string][] = [
      [[], 'INVALID_ARGUMENT'],
      [Array.from({ length: 101 }, (_, i) => put(`stock/${i}`, i)), 'INVALID_ARGUMENT'],
      [[put('stock/a', 1), stock.deleteAction('a')], 'INVALID_ARGUMENT'],
      [[put('', 1)], 'INVALID_KEY'],
      [[put('stock/a', undefined)], 'INVALID_ARGUMENT'],
      [[put('stock/a', 10n)], 'INVALID_VALUE'],
      [[put('stock/a', () => 1)], 'INVALID_VALUE'],
      [[{ type: 'conditionCheck', key: 'stock/a' } as never], 'INVALID_ARGUMENT'],
      [[{ type: 'merge', key: 'stock/a' } as never], 'INVALID_ARGUMENT'],
      [[stock.deleteAction('a', { ifVersion: '1', ifAbsent: true } as never)], 'INVALID_ARGUMENT'],
      [[stock.deleteAction('a', { ifAbsent: false } as never)], 'INVALID_ARGUMENT'],
      [[stock.deleteAction('a', { ifVersion: 3 } as never)], 'INVALID_ARGUMENT'],
    ];
    for (const [actions, code] of cases) {
      expect(
        await failure(client.transact(actions)),
        JSON.stringify(actions.slice(0, 2), (_, v) => String(v)),
      ).toMatchObject({ code });
    }
    expect(await failure(client.transact([put('stock/a', 1)], { token: 'has space' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(store.log).toEqual([]);
    const dup = await failure(client.transact([put('stock/a', 1), put('stock/a', 2)]));
    expect(dup.message).toContain('"stock/a"');
  });

  it('sends only the known fields of each action', async () => {
    const { store, client } = setup();
    const extra = {
      type: 'delete',
      key: 'stock/a',
      note: 'x',
      condition: { ifExists: true },
    } as TransactAction;
    await failure(client.transact([extra]));
    expect(sent(store)[0]!.actions).toEqual([
      { type: 'delete', key: 'stock/a', condition: { ifExists: true } },
    ]);
  });

  it('rejects a commit without a version for every key as BAD_RESPONSE, maybe applied', async () => {
    const { store, client, stock } = setup();
    store.script.push(json(200, { committed: true, versions: {} }));
    const err = await failure(client.transact([stock.putAction('a', 1)]));
    expect(err).toMatchObject({ code: 'BAD_RESPONSE', maybeApplied: true });
    expect(err.details?.clientRequestToken).toBe(sent(store)[0]!.clientRequestToken);
  });
});

describe('transactGet', () => {
  it('reads every key in order, found or not, with its version', async () => {
    const { store, client } = setup();
    store.write('stock/a', { n: 1 });
    store.write('orders/o', 'x');
    store.entries.set('stock/gone', { version: 4 });
    const items = await client.transactGet(['stock/gone', 'stock/a', 'orders/o', 'stock/none']);
    expect(items).toEqual([
      { key: 'stock/gone', found: false, version: '4' },
      { key: 'stock/a', found: true, value: { n: 1 }, version: '1' },
      { key: 'orders/o', found: true, value: 'x', version: '1' },
      { key: 'stock/none', found: false, version: '0' },
    ]);
    expect(store.log[0]).toMatchObject({
      method: 'POST',
      path: '/v1/transactions/get',
      body: { keys: ['stock/gone', 'stock/a', 'orders/o', 'stock/none'] },
    });
  });

  it('checks the keys first, and rejects answers out of order or without versions', async () => {
    const { store, client } = setup();
    expect(await failure(client.transactGet([]))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await failure(client.transactGet(['stock/a', 'stock/a']))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await failure(client.transactGet(['']))).toMatchObject({ code: 'INVALID_KEY' });
    expect(store.log).toEqual([]);
    store.script.push(
      json(200, {
        items: [
          { key: 'stock/b', found: false, version: '0' },
          { key: 'stock/a', found: false, version: '0' },
        ],
      }),
    );
    expect(await failure(client.transactGet(['stock/a', 'stock/b']))).toMatchObject({ code: 'BAD_RESPONSE' });
    store.script.push(json(200, { items: [{ key: 'stock/a', found: true, version: '1' }] }));
    expect(await failure(client.transactGet(['stock/a']))).toMatchObject({ code: 'BAD_RESPONSE' });
    store.script.push(json(200, { items: [{ key: 'stock/a', found: false }] }));
    expect(await failure(client.transactGet(['stock/a']))).toMatchObject({ code: 'BAD_RESPONSE' });
  });
});
