/**
 * Black-box tests of key listing (GET /v1/kv, a coverage query) and batch get
 * (POST /v1/kv/batch-get) on three real node processes. N=2, so each node replicates only part of
 * the ring and a listing asks the other nodes for the partitions it does not hold (ListKeys).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kvPath, type Reply, startCluster, type TestCluster } from './helpers.js';

let cluster: TestCluster;
const url = (i: number): string => cluster.nodes[i]!.url;

const LIVE = 'cart/';
const written = new Map<string, number>();
const deleted = new Set<string>();

/** The codes a bad cursor may answer with (INVALID_CURSOR once the code table has it). */
const CURSOR_CODES = ['BAD_REQUEST', 'INVALID_CURSOR'];

beforeAll(async () => {
  cluster = await startCluster(3, ['--n', '2']);
  const writes: Promise<void>[] = [];
  for (let i = 0; i < 230; i++) writes.push(put(i % 3, `${LIVE}${i}`, { i }));
  for (let i = 0; i < 40; i++) writes.push(put(i % 3, `other/${i}`, i));
  await Promise.all(writes);
  // Delete some with the context of a read, some blindly.
  for (let i = 0; i < 230; i += 9) {
    const key = `${LIVE}${i}`;
    const read = await http(url(1), 'GET', kvPath(key));
    const body = i % 2 === 0 ? { context: read.body.context } : {};
    const res = await http(url(i % 3), 'DELETE', kvPath(key), { json: body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    deleted.add(key);
  }
}, 120_000);

afterAll(async () => {
  await cluster?.destroy();
});

async function put(node: number, key: string, value: unknown): Promise<void> {
  const res = await http(url(node), 'PUT', kvPath(key), { json: { value } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  written.set(key, node);
}

function liveKeys(prefix: string): string[] {
  return [...written.keys()].filter((k) => k.startsWith(prefix) && !deleted.has(k)).sort();
}

interface Page {
  keys: string[];
  cursor: string | null;
}

function listPath(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const q = params.toString();
  return q === '' ? '/v1/kv' : `/v1/kv?${q}`;
}

/** Follows cursors to the end; answers every page. */
async function listAll(node: number, prefix: string | undefined, limit: number): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1_000; i++) {
    const res = await http(url(node), 'GET', listPath({ prefix, limit, cursor }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = res.body as unknown as Page;
    pages.push(page);
    if (page.cursor === null) return pages;
    cursor = page.cursor;
  }
  throw new Error('the listing did not end');
}

function expectCursorRefused(res: Reply): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(CURSOR_CODES).toContain((res.body.error as { code: string }).code);
}

describe('listing keys', () => {
  it('sees every live key with the prefix exactly once over several pages, and no deleted key', async () => {
    for (const node of [0, 1, 2]) {
      const pages = await listAll(node, LIVE, 40);
      expect(pages.length).toBeGreaterThanOrEqual(2);
      for (const page of pages) expect(page.keys.length).toBeLessThanOrEqual(40);
      const keys = pages.flatMap((p) => p.keys);
      expect(keys.length, 'no key twice').toBe(new Set(keys).size);
      expect([...keys].sort()).toEqual(liveKeys(LIVE));
      for (const key of keys) expect(deleted.has(key)).toBe(false);
    }
  });

  it('lists every key without a prefix, in partition order rather than key order', async () => {
    const pages = await listAll(2, undefined, 1_000);
    const keys = pages.flatMap((p) => p.keys);
    expect([...keys].sort()).toEqual(liveKeys(''));
    const partitions: number[] = [];
    for (const key of keys.slice(0, 30)) {
      const res = await http(url(0), 'GET', `/v1/preference-list/${encodeURIComponent(key)}`);
      partitions.push(res.body.partition as number);
    }
    expect(partitions).toEqual([...partitions].sort((a, b) => a - b));
  });

  it('answers an empty listing for a prefix nothing has', async () => {
    const pages = await listAll(0, 'nothing-here/', 100);
    expect(pages.flatMap((p) => p.keys)).toEqual([]);
  });

  it('defaults to pages of at most 100 keys', async () => {
    const res = await http(url(0), 'GET', listPath({ prefix: LIVE }));
    expect(res.status).toBe(200);
    expect((res.body.keys as string[]).length).toBeLessThanOrEqual(100);
    expect(typeof res.body.cursor).toBe('string');
  });

  it('refuses a cursor that is not one it issued, or issued for another prefix', async () => {
    expectCursorRefused(await http(url(0), 'GET', listPath({ prefix: LIVE, cursor: 'not a cursor!' })));
    expectCursorRefused(await http(url(0), 'GET', listPath({ prefix: LIVE, cursor: 'AAAA' })));
    const first = await http(url(0), 'GET', listPath({ prefix: LIVE, limit: 5 }));
    const cursor = first.body.cursor as string;
    expectCursorRefused(await http(url(0), 'GET', listPath({ prefix: 'other/', cursor })));
    // Decoded and edited: a key that is not of the cursor's partition.
    const fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = { ...fields, p: ((fields.p as number) + 1) % 64, k: 'cart/1' };
    const edited = Buffer.from(JSON.stringify(forged)).toString('base64url');
    expectCursorRefused(await http(url(0), 'GET', listPath({ prefix: LIVE, cursor: edited })));
    const beyond = Buffer.from(JSON.stringify({ ...fields, p: 64, k: undefined })).toString('base64url');
    expectCursorRefused(await http(url(0), 'GET', listPath({ prefix: LIVE, cursor: beyond })));
  });

  it('refuses a limit out of range and unknown parameters', async () => {
    for (const query of [{ limit: 0 }, { limit: 1001 }, { limit: 'ten' }, { page: 2 }]) {
      const res = await http(url(0), 'GET', listPath(query));
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect((res.body.error as { code: string }).code).toBe('BAD_REQUEST');
    }
  });
});

interface BatchResult {
  key: string;
  context?: string;
  siblings?: { value: unknown; lastModified: string }[];
  error?: { code: string; message: string };
}

describe('batch get', () => {
  it('answers every key in request order: found, deleted, never written, repeated', async () => {
    const deletedKey = [...deleted][0]!;
    const keys = [`${LIVE}1`, 'never/written', deletedKey, `${LIVE}2`, `${LIVE}1`];
    const res = await http(url(2), 'POST', '/v1/kv/batch-get', { json: { keys } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const results = res.body.results as BatchResult[];
    expect(results.map((r) => r.key)).toEqual(keys);
    expect(results[0]!.siblings!.map((s) => s.value)).toEqual([{ i: 1 }]);
    expect(typeof results[0]!.context).toBe('string');
    expect(results[1]).toEqual({ key: 'never/written', siblings: [] });
    expect(results[2]!.siblings).toEqual([]);
    expect(typeof results[2]!.context, 'a tombstone has a context').toBe('string');
    expect(results[3]!.siblings!.map((s) => s.value)).toEqual([{ i: 2 }]);
    expect(results[4]).toEqual(results[0]);
  });

  it('gives contexts that resolve the siblings they were read with', async () => {
    const key = `${LIVE}sibling-pair`;
    await put(0, key, 'a');
    await put(1, key, 'b');
    const res = await http(url(0), 'POST', '/v1/kv/batch-get', { json: { keys: [key], r: 2 } });
    const [result] = res.body.results as BatchResult[];
    expect(result!.siblings!.map((s) => s.value).sort()).toEqual(['a', 'b']);
    const write = await http(url(1), 'PUT', kvPath(key), { json: { value: 'ab', context: result!.context } });
    expect(write.status).toBe(200);
    const after = await http(url(2), 'GET', kvPath(key));
    expect((after.body.siblings as { value: unknown }[]).map((s) => s.value)).toEqual(['ab']);
  });

  it('answers failures per key', async () => {
    const res = await http(url(0), 'POST', '/v1/kv/batch-get', {
      json: { keys: [`${LIVE}3`, `${LIVE}4`], timeoutMs: 1 },
    });
    expect(res.status).toBe(200);
    const results = res.body.results as BatchResult[];
    expect(results.map((r) => r.key)).toEqual([`${LIVE}3`, `${LIVE}4`]);
    for (const r of results) {
      // Either read in time, or its own error: one key's failure never fails the batch.
      if (r.error !== undefined) expect(['TIMEOUT', 'INSUFFICIENT_REPLICAS']).toContain(r.error.code);
      else expect(r.siblings!.length).toBe(1);
    }
  });

  it('refuses a batch that is empty, too large, or malformed', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => `k${i}`);
    const cases: Array<[unknown, string]> = [
      [{ keys: [] }, 'BAD_REQUEST'],
      [{ keys: tooMany }, 'BAD_REQUEST'],
      [{ keys: [''] }, 'BAD_REQUEST'],
      [{ keys: ['x'.repeat(1025)] }, 'BAD_REQUEST'],
      [{ keys: 'cart/1' }, 'BAD_REQUEST'],
      [{ keys: ['a'], extra: 1 }, 'BAD_REQUEST'],
      [{ keys: ['a'], r: 3 }, 'INVALID_QUORUM'],
      [{ keys: ['a'], r: 0 }, 'INVALID_QUORUM'],
    ];
    for (const [json, code] of cases) {
      const res = await http(url(0), 'POST', '/v1/kv/batch-get', { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body.error as { code: string }).code, JSON.stringify(json)).toBe(code);
    }
    const hundred = Array.from({ length: 100 }, (_, i) => `${LIVE}${i}`);
    const res = await http(url(1), 'POST', '/v1/kv/batch-get', { json: { keys: hundred } });
    expect(res.status).toBe(200);
    expect((res.body.results as BatchResult[]).length).toBe(100);
  });
});

describe('with a node down', () => {
  it('still lists every live key: each partition has another live replica', async () => {
    await cluster.nodes[2]!.kill();
    const pages = await listAll(0, LIVE, 100);
    const keys = pages.flatMap((p) => p.keys);
    expect(keys.length).toBe(new Set(keys).size);
    expect([...keys].sort()).toEqual(liveKeys(LIVE));
  });
});
