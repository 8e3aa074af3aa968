/**
 * Strong keys and transactions on real node processes (docs/transactions.md): conditions, a
 * retried token applying once, a minority side refusing strong writes while plain writes there go
 * on, a transaction's coordinator killed between its phases, and a wiped node that must rebuild its
 * records before it votes again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configFile,
  healNetwork,
  http,
  kvPath,
  type Reply,
  restartNode,
  splitNetwork,
  startCluster,
  status,
  type TestCluster,
  waitFor,
} from './helpers.js';

const TXN_TIMEOUT_MS = 1_500;
const SETTINGS = {
  peerRetryMs: 300,
  gossipIntervalMs: 200,
  txnTimeoutMs: TXN_TIMEOUT_MS,
  peerTimeoutMs: 500,
};
let cluster: TestCluster;
const url = (i: number): string => cluster.nodes[i]!.url;

beforeAll(async () => {
  const config = await configFile(SETTINGS);
  cluster = await startCluster(3, ['--fault-injection', '--strong', 'stock,orders', '--config', config]);
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

function put(
  i: number,
  key: string,
  value: unknown,
  headers: Record<string, string> = {},
  query = '',
): Promise<Reply> {
  return http(url(i), 'PUT', kvPath(key, query), { json: { value }, headers });
}

async function read(i: number, key: string): Promise<{ value?: unknown; version: string }> {
  const res = await http(url(i), 'GET', kvPath(key, '?missing=ok'));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { value?: unknown; version: string };
}

function transact(i: number, body: unknown): Promise<Reply> {
  return http(url(i), 'POST', '/v1/transactions', { json: body });
}

describe('strong keys', () => {
  it('a write acknowledged by one node is what every node reads next; a stale If-Match is refused', async () => {
    const created = await put(0, 'stock/apple', 5, { 'if-none-match': '*' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.version).toBe('1');
    expect(await read(1, 'stock/apple')).toMatchObject({ value: 5, version: '1' });
    expect((await put(2, 'stock/apple', 4, { 'if-match': '"1"' })).status).toBe(200);
    const stale = await put(0, 'stock/apple', 3, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 'PRECONDITION_FAILED', details: { currentVersion: '2' } });
    expect(await read(0, 'stock/apple')).toMatchObject({ value: 4, version: '2' });
    const again = await put(1, 'stock/apple', 9, { 'if-none-match': '*' });
    expect(again.status).toBe(412);
  });

  it('a context or w on a strong key is refused with a message that says what to send instead', async () => {
    const res = await http(url(0), 'PUT', kvPath('stock/pear'), { json: { value: 1, context: 'c1.x' } });
    expect(res.status).toBe(400);
    expect(String((res.body.error as { message: string }).message)).toContain('If-Match');
  });

  it('a transaction retried with the same token applies once, and answers the first outcome', async () => {
    await put(0, 'stock/kiwi', 10, { 'if-none-match': '*' });
    const body = {
      clientRequestToken: 'order-kiwi-1',
      actions: [
        { type: 'put', key: 'stock/kiwi', value: 8, condition: { ifVersion: '1' } },
        { type: 'put', key: 'orders/kiwi-1', value: { kiwi: 2 }, condition: { ifAbsent: true } },
      ],
    };
    const [a, b] = await Promise.all([transact(0, body), transact(1, body)]);
    const c = await transact(2, body);
    for (const res of [a, b, c]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.versions).toEqual({ 'stock/kiwi': '2', 'orders/kiwi-1': '1' });
    }
    expect(await read(2, 'stock/kiwi')).toMatchObject({ value: 8, version: '2' });
    const other = await transact(0, { ...body, actions: body.actions.slice(0, 1) });
    expect(other.status).toBe(400);
    expect((other.body.error as { code: string }).code).toBe('IDEMPOTENT_PARAMETER_MISMATCH');
  });

  it('a value past valueBytesMax is refused for a strong key and in a transaction, as for a plain key, and nothing is written', async () => {
    const large = 'x'.repeat(1024 * 1024 + 1_000); // the default limit is 1 MiB; the body limit 64 KiB more
    for (const res of [
      await put(0, 'stock/large', large),
      await transact(1, { actions: [{ type: 'put', key: 'stock/large', value: large }] }),
      await put(2, 'plain-large', large),
    ]) {
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(413);
      expect(res.body.error).toMatchObject({
        code: 'VALUE_TOO_LARGE',
        details: { valueBytesMax: 1024 * 1024 },
      });
    }
    expect(await read(0, 'stock/large')).toEqual({ key: 'stock/large', version: '0', consistency: 'strong' });
  });

  it('a batch get answers a strong key with an error that says where to read it, never an empty value; a listing leaves strong keys out', async () => {
    await put(0, 'stock/batch', 3, { 'if-none-match': '*' });
    await put(0, 'plain-batch', 'p');
    const res = await http(url(1), 'POST', '/v1/kv/batch-get', {
      json: { keys: ['stock/batch', 'plain-batch'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [strong, plain] = res.body.results as {
      key: string;
      error?: { code: string; message: string };
      siblings?: { value: unknown }[];
    }[];
    expect(strong).toMatchObject({ key: 'stock/batch', error: { code: 'BAD_REQUEST' } });
    expect(strong!.error!.message).toContain('POST /v1/transactions/get');
    expect(plain!.siblings!.map((s) => s.value)).toEqual(['p']);
    const listed = await http(url(2), 'GET', '/v1/kv?prefix=stock%2F');
    expect(listed.body).toEqual({ keys: [], cursor: null });
  });

  it('a cancelled transaction names the action that failed and changes nothing', async () => {
    const res = await transact(1, {
      actions: [
        { type: 'put', key: 'stock/kiwi', value: 7, condition: { ifVersion: '2' } },
        { type: 'conditionCheck', key: 'orders/none', condition: { ifExists: true } },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'TRANSACTION_CANCELED',
      details: {
        cancellationReasons: [{ code: 'None' }, { code: 'ConditionalCheckFailed', currentVersion: '0' }],
      },
    });
    expect(await read(0, 'stock/kiwi')).toMatchObject({ value: 8, version: '2' });
  });
});

describe('strong keys under faults', () => {
  it('a minority side refuses strong writes with STRONG_UNAVAILABLE while plain writes there succeed', async () => {
    const [n0, n1, n2] = cluster.nodes as [
      (typeof cluster.nodes)[0],
      (typeof cluster.nodes)[0],
      (typeof cluster.nodes)[0],
    ];
    await splitNetwork([n0], [n1, n2]);
    try {
      const strong = await put(0, 'stock/fig', 1, {}, '?timeoutMs=1500');
      expect(strong.status, JSON.stringify(strong.body)).toBe(503);
      expect((strong.body.error as { code: string }).code).toBe('STRONG_UNAVAILABLE');
      const plain = await put(0, 'cart/fig', ['fig'], {}, '?w=1');
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      const majority = await put(1, 'stock/fig', 2);
      expect(majority.status, JSON.stringify(majority.body)).toBe(200);
    } finally {
      await healNetwork(cluster.nodes);
    }
    await waitFor(
      async () => (await http(url(0), 'GET', kvPath('stock/fig'))).status === 200,
      10_000,
      'n0 reads again',
    );
    expect(await read(0, 'stock/fig')).toMatchObject({ value: 2 });
  }, 30_000);

  it('a coordinator killed with its intents placed: the transaction is cancelled by recovery, never half applied', async () => {
    await put(1, 'stock/lime', 3, { 'if-none-match': '*' });
    await http(url(0), 'POST', '/v1/admin/faults', {
      json: { blockPeers: [], crashMidTransaction: 'after-intents' },
    });
    const body = {
      clientRequestToken: 'lime-1',
      actions: [
        { type: 'put', key: 'stock/lime', value: 2, condition: { ifVersion: '1' } },
        { type: 'put', key: 'orders/lime-1', value: { lime: 1 } },
      ],
    };
    await expect(transact(0, body)).rejects.toThrow();
    // Held, not yet expired: reads answer the value from before the transaction.
    expect(await read(1, 'stock/lime')).toMatchObject({ value: 3, version: '1' });
    await waitFor(
      async () => (await put(2, 'stock/lime', 5, { 'if-match': '"1"' })).status === 200,
      TXN_TIMEOUT_MS + 10_000,
      'a write after the stalled transaction expired',
    );
    expect(await read(1, 'orders/lime-1')).toEqual({
      key: 'orders/lime-1',
      version: '0',
      consistency: 'strong',
    });
    const retried = await transact(1, body);
    expect(retried.status).toBe(409);
    expect((retried.body.error as { code: string }).code).toBe('TRANSACTION_CANCELED');
    await restartNode(cluster, 0);
  }, 40_000);

  it('a coordinator killed just after its commit: every key shows the transaction, and a retry applies nothing more', async () => {
    await put(1, 'stock/plum', 3, { 'if-none-match': '*' });
    await http(url(0), 'POST', '/v1/admin/faults', {
      json: { blockPeers: [], crashMidTransaction: 'after-commit' },
    });
    const body = {
      clientRequestToken: 'plum-1',
      actions: [
        { type: 'put', key: 'stock/plum', value: 2, condition: { ifVersion: '1' } },
        { type: 'put', key: 'orders/plum-1', value: { plum: 1 }, condition: { ifAbsent: true } },
      ],
    };
    await expect(transact(0, body)).rejects.toThrow();
    expect(await read(1, 'stock/plum')).toMatchObject({ value: 2, version: '2' });
    expect(await read(2, 'orders/plum-1')).toMatchObject({ value: { plum: 1 }, version: '1' });
    const retried = await transact(2, body);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.versions).toEqual({ 'stock/plum': '2', 'orders/plum-1': '1' });
    expect(await read(1, 'stock/plum')).toMatchObject({ value: 2, version: '2' });
    await restartNode(cluster, 0);
  }, 40_000);

  it('a wiped node votes only once it rebuilt its records: a write only it and one other held is never lost', async () => {
    await put(0, 'stock/date', 'v1', { 'if-none-match': '*' });
    const [n0, n1, n2] = cluster.nodes as [
      (typeof cluster.nodes)[0],
      (typeof cluster.nodes)[0],
      (typeof cluster.nodes)[0],
    ];
    // v2 is chosen by n0 and n1 alone: n2 is cut off and keeps v1.
    await splitNetwork([n0, n1], [n2]);
    expect((await put(0, 'stock/date', 'v2', { 'if-match': '"1"' })).status).toBe(200);
    await healNetwork(cluster.nodes);
    await restartNode(cluster, 0, { wipe: true, seeds: [n1.peerAddress] });
    await waitFor(
      async () => !(await status(url(0))).strong.recovering,
      20_000,
      'n0 rebuilt its strong records',
    );
    await cluster.nodes[1]!.kill();
    // The only majority left is n0 and n2: n0 must hold v2 now, or the read would go back to v1.
    expect(await read(2, 'stock/date')).toMatchObject({ value: 'v2', version: '2' });
    await restartNode(cluster, 1);
  }, 60_000);
});
