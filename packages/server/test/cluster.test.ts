/**
 * Black-box tests: three real `tessera start` processes on loopback, driven over HTTP as a user
 * would. N=3, R=2, W=2 (the defaults).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kvPath, type SiblingBody, startCluster, type TestCluster, waitFor } from './helpers.js';

let cluster: TestCluster;
const url = (i: number): string => cluster.nodes[i]!.url;

beforeAll(async () => {
  cluster = await startCluster(3);
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

async function put(node: number, key: string, value: unknown, context?: string, query = ''): Promise<string> {
  const res = await http(url(node), 'PUT', kvPath(key, query), {
    json: context === undefined ? { value } : { value, context },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.context as string;
}

async function get(node: number, key: string, query = ''): Promise<SiblingBody> {
  const res = await http(url(node), 'GET', kvPath(key, query));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as SiblingBody;
}

describe('a three-node cluster', () => {
  it('reports every member as up, with partitions balanced within one', async () => {
    const res = await http(url(1), 'GET', '/v1/status');
    expect(res.status).toBe(200);
    const members = res.body.members as { nodeId: string; status: string; partitions: number }[];
    expect(members.map((m) => m.nodeId)).toEqual(['n0', 'n1', 'n2']);
    expect(members.every((m) => m.status === 'up')).toBe(true);
    const counts = members.map((m) => m.partitions);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(64);
    expect(res.body).toMatchObject({ n: 3, r: 2, w: 2 });
  });

  it('gives every key a preference list whose first N nodes are distinct', async () => {
    const res = await http(url(0), 'GET', '/v1/preference-list/some%2Fkey');
    expect(res.status).toBe(200);
    expect(res.body.key).toBe('some/key');
    const nodes = res.body.nodes as string[];
    expect(new Set(nodes.slice(0, 3)).size).toBe(3);
  });

  it('reads its writes with R=W=2, whichever node is asked', async () => {
    for (let i = 0; i < 30; i++) {
      const key = `ryw-${i}/ünïcode key`;
      await put(i % 3, key, { i, text: 'héllo' });
      const read = await get((i + 1) % 3, key);
      expect(read.siblings.map((s) => s.value)).toEqual([{ i, text: 'héllo' }]);
      expect(read.key).toBe(key);
    }
  });

  it('keeps two blind puts through the same node as two siblings, and a put with the read context replaces them', async () => {
    await put(0, 'cart-1', ['apple']);
    await put(0, 'cart-1', ['pear']);
    const read = await get(1, 'cart-1');
    expect(read.siblings.map((s) => s.value).sort()).toEqual([['apple'], ['pear']]);
    await put(2, 'cart-1', ['apple', 'pear'], read.context);
    const merged = await get(0, 'cart-1');
    expect(merged.siblings.map((s) => s.value)).toEqual([['apple', 'pear']]);
  });

  it('a put with the context a put returned replaces only that version, not a concurrent one', async () => {
    const mine = await put(0, 'cart-2', ['mine']);
    await put(0, 'cart-2', ['theirs']);
    await put(1, 'cart-2', ['mine', 'more'], mine);
    const read = await get(2, 'cart-2');
    expect(read.siblings.map((s) => s.value).sort()).toEqual([['mine', 'more'], ['theirs']]);
  });

  it('deletes: a deleted key is 404 with a context, and a put concurrent with the delete survives', async () => {
    await put(0, 'doomed', 'v1');
    const seen = (await get(1, 'doomed')).context;
    const del = await http(url(2), 'DELETE', kvPath('doomed'), { json: { context: seen } });
    expect(del.status).toBe(200);
    const gone = await http(url(0), 'GET', kvPath('doomed'));
    expect(gone.status).toBe(404);
    expect((gone.body.error as { code: string }).code).toBe('NOT_FOUND');
    expect(typeof gone.body.context).toBe('string');

    await put(0, 'raced', 'v1');
    const ctx = (await get(0, 'raced')).context;
    await Promise.all([
      http(url(1), 'DELETE', kvPath('raced'), { json: { context: ctx } }),
      put(2, 'raced', 'v2-written-concurrently', ctx),
    ]);
    const after = await get(0, 'raced');
    expect(after.siblings.map((s) => s.value)).toEqual(['v2-written-concurrently']);
  });

  it('a delete without a context removes what a quorum read sees; deleting a missing key is 404', async () => {
    await put(1, 'blind-delete', 1);
    expect((await http(url(0), 'DELETE', kvPath('blind-delete'))).status).toBe(200);
    expect((await http(url(2), 'GET', kvPath('blind-delete'))).status).toBe(404);
    expect((await http(url(2), 'DELETE', kvPath('never-written'))).status).toBe(404);
  });

  it('answers bad requests with a coded 4xx and leaves stored data intact', async () => {
    await put(0, 'precious', { keep: true });
    const ctx = (await get(0, 'precious')).context;
    const cases: Array<
      [string, string, { json?: unknown; raw?: string; headers?: Record<string, string> }, number, string]
    > = [
      [
        'PUT',
        kvPath('precious'),
        { raw: '{"value": ', headers: { 'content-type': 'application/json' } },
        400,
        'INVALID_JSON',
      ],
      ['PUT', kvPath('precious'), { json: { context: ctx } }, 400, 'BAD_REQUEST'],
      ['PUT', kvPath('precious'), { json: { value: 1, context: 42 } }, 400, 'BAD_REQUEST'],
      ['PUT', kvPath('precious'), { json: { value: 1, extra: true } }, 400, 'BAD_REQUEST'],
      ['PUT', kvPath('precious'), { json: [1, 2] }, 400, 'BAD_REQUEST'],
      [
        'PUT',
        kvPath('precious'),
        { json: { value: 1, context: `${ctx.slice(0, -3)}abc` } },
        400,
        'INVALID_CONTEXT',
      ],
      ['PUT', kvPath('precious'), { json: { value: 1, context: ctx.slice(0, 10) } }, 400, 'INVALID_CONTEXT'],
      ['PUT', kvPath('precious'), { json: { value: 1, context: 'garbage' } }, 400, 'INVALID_CONTEXT'],
      ['PUT', kvPath('other-key'), { json: { value: 1, context: ctx } }, 400, 'INVALID_CONTEXT'],
      ['DELETE', kvPath('precious'), { json: { context: 'c1.x.y' } }, 400, 'INVALID_CONTEXT'],
      ['PUT', kvPath('precious', '?w=0'), { json: { value: 1 } }, 400, 'INVALID_QUORUM'],
      ['PUT', kvPath('precious', '?w=4'), { json: { value: 1 } }, 400, 'INVALID_QUORUM'],
      ['GET', kvPath('precious', '?r=abc'), {}, 400, 'INVALID_QUORUM'],
      ['GET', kvPath('precious', '?r=9'), {}, 400, 'INVALID_QUORUM'],
      ['GET', kvPath('precious', '?timeoutMs=-5'), {}, 400, 'INVALID_QUORUM'],
      ['GET', kvPath('precious', '?bogus=1'), {}, 400, 'BAD_REQUEST'],
      ['GET', kvPath('k'.repeat(1025)), {}, 400, 'INVALID_KEY'],
      [
        'PUT',
        kvPath('precious'),
        { raw: 'value=1', headers: { 'content-type': 'text/plain' } },
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      ['PUT', kvPath('precious'), { json: { value: 'x'.repeat(1024 * 1024 + 10) } }, 413, 'VALUE_TOO_LARGE'],
      ['PUT', kvPath('precious'), { json: { value: 'x'.repeat(3 * 1024 * 1024) } }, 413, 'VALUE_TOO_LARGE'],
      ['GET', '/v1/nothing-here', {}, 404, 'ROUTE_NOT_FOUND'],
    ];
    for (const [method, path, options, status, code] of cases) {
      const res = await http(url(1), method, path, options);
      expect({
        method,
        path: path.slice(0, 60),
        status: res.status,
        code: (res.body.error as { code?: string })?.code,
      }).toEqual({
        method,
        path: path.slice(0, 60),
        status,
        code,
      });
      expect(typeof (res.body.error as { message?: string }).message).toBe('string');
    }
    const still = await get(2, 'precious');
    expect(still.siblings.map((s) => s.value)).toEqual([{ keep: true }]);
  });

  it('serves the ring page for operators at /ui', async () => {
    const res = await fetch(`${url(0)}/ui`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('<title>Tessera ring</title>');
    expect(html).toContain("fetch('/v1/status'");
  });

  it('accepts a key of exactly 1024 bytes', async () => {
    const key = 'é'.repeat(512);
    await put(0, key, 'max');
    expect((await get(1, key)).siblings[0]!.value).toBe('max');
  });

  it('serves many concurrent reads of a value near valueBytesMax (their replica replies exceed one peer message together)', async () => {
    const value = 'v'.repeat(1_000_000); // 1,000,002 bytes serialized; the default limit is 1 MiB
    await put(0, 'large-and-hot', value);
    const reads = await Promise.all(
      Array.from({ length: 12 }, () => http(url(1), 'GET', kvPath('large-and-hot'))),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(12).fill(200));
    for (const read of reads)
      expect((read.body as unknown as SiblingBody).siblings[0]!.value === value).toBe(true);
  });
});

describe('a node killed with kill -9', () => {
  it('leaves every key readable and writable, and the restarted node still holds what it stored', async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `survivor-${i}`);
    for (const key of keys) await put(0, key, { key, round: 1 });
    const victim = cluster.nodes[2]!;
    const heldBefore: string[] = [];
    for (const key of keys) {
      const local = await http(victim.url, 'GET', kvPath(key, '?local=true'));
      if (local.status === 200) heldBefore.push(key);
    }
    expect(heldBefore.length).toBeGreaterThan(0);

    await victim.kill();
    for (const key of keys) {
      const read = await get(keys.indexOf(key) % 2, key);
      expect(read.siblings.map((s) => s.value)).toEqual([{ key, round: 1 }]);
      await put(1, key, { key, round: 2 }, read.context);
    }
    for (const key of keys) {
      expect((await get(0, key)).siblings.map((s) => s.value)).toEqual([{ key, round: 2 }]);
    }

    await victim.start();
    for (const key of heldBefore) {
      const local = await http(victim.url, 'GET', kvPath(key, '?local=true'));
      expect(local.status, key).toBe(200);
    }
    // The restarted node kept its identity and partitions, and serves reads again.
    const status = await http(victim.url, 'GET', '/v1/status');
    expect(status.body.nodeId).toBe('n2');
    await waitFor(
      async () => (await http(url(0), 'GET', kvPath(keys[0]!))).status === 200,
      10_000,
      'reads succeed',
    );
    expect((await get(2, keys[0]!)).siblings.map((s) => s.value)).toEqual([{ key: keys[0], round: 2 }]);
  }, 60_000);
});
