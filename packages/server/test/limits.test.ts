/** Limits a user can configure: siblings per key and value size, on a one-node cluster. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, VALUE_BYTES_MAX_LIMIT } from '../src/config.js';
import { http, kvPath, startCluster, type TestCluster } from './helpers.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster(1, [
    '--n',
    '1',
    '--r',
    '1',
    '--w',
    '1',
    '--siblings-max',
    '3',
    '--value-bytes-max',
    '1000',
    '--storage',
    'memory',
  ]);
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('limits', () => {
  it('refuses a blind write past siblingsMax with a coded 409, and accepts the merge that resolves them', async () => {
    const url = cluster.nodes[0]!.url;
    for (const v of [1, 2, 3])
      expect((await http(url, 'PUT', kvPath('hot'), { json: { value: v } })).status).toBe(200);
    const refused = await http(url, 'PUT', kvPath('hot'), { json: { value: 4 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'TOO_MANY_SIBLINGS', details: { siblingsMax: 3 } });
    const read = await http(url, 'GET', kvPath('hot'));
    expect(read.body.siblings).toHaveLength(3);
    const merged = await http(url, 'PUT', kvPath('hot'), { json: { value: 6, context: read.body.context } });
    expect(merged.status).toBe(200);
    expect((await http(url, 'GET', kvPath('hot'))).body.siblings).toEqual([
      { value: 6, lastModified: expect.any(String) },
    ]);
  });

  it('refuses a value larger than valueBytesMax with 413 and keeps the old value', async () => {
    const url = cluster.nodes[0]!.url;
    await http(url, 'PUT', kvPath('sized'), { json: { value: 'small' } });
    const big = await http(url, 'PUT', kvPath('sized'), { json: { value: 'x'.repeat(1000) } });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'VALUE_TOO_LARGE', details: { valueBytesMax: 1000 } });
    const read = await http(url, 'GET', kvPath('sized'));
    expect(read.body.siblings).toEqual([{ value: 'small', lastModified: expect.any(String) }]);
  });

  it('refuses at start a valueBytesMax that one peer message could not carry, saying what to do', () => {
    const base = { nodeId: 'x', dataDir: '/tmp/x', http: '127.0.0.1:7000', peer: '127.0.0.1:8000' };
    expect(parseConfig({ ...base, valueBytesMax: VALUE_BYTES_MAX_LIMIT }).valueBytesMax).toBe(
      VALUE_BYTES_MAX_LIMIT,
    );
    expect(() => parseConfig({ ...base, valueBytesMax: VALUE_BYTES_MAX_LIMIT + 1 })).toThrow(
      /valueBytesMax must be at most 4063232 bytes.*store a reference/,
    );
  });
});
