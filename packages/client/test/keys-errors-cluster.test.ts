/**
 * Against a real three-node cluster: every key the docs allow goes through the SDK and back
 * (fast-check keys, `.`, `..`, `%`, `/` and unicode among them), with the Node client (undici) and
 * with the fetch transport (WHATWG URLs, as in a browser); then, with nodes down, errors that tell
 * the truth: a w=3 put that two replicas acknowledged says so, an r=3 get reports the nodes'
 * verdict rather than the last connection refused, a value JSON cannot hold is INVALID_VALUE and
 * marks no node down, and an update with two of three nodes down fails within its deadline.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { fetchTransport, TesseraClient, type TesseraError } from '../src/node.js';

let cluster: TestCluster;
const clients: TesseraClient[] = [];
const stopped: number[] = [];

beforeAll(async () => {
  cluster = await startCluster(3);
}, 90_000);

afterAll(async () => {
  for (const pid of stopped) process.kill(pid, 'SIGCONT');
  await Promise.all(clients.map((c) => c.close()));
  await cluster?.destroy();
});

function client(options: { fetch?: boolean } = {}): TesseraClient {
  const c = new TesseraClient({
    nodes: [cluster.nodes[0]!.url],
    ...(options.fetch === true ? { transport: fetchTransport() } : {}),
  });
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

const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

/** Keys as docs/api.md allows them: 1 to 1024 bytes of UTF-8, well-formed; the awkward ones likely. */
const docKey = fc
  .oneof(
    fc.constantFrom(
      '.',
      '..',
      '...',
      '%',
      '%2E',
      '%2e%2E',
      '/',
      '//',
      '/..',
      '../x',
      'a/../b',
      './',
      '?',
      '#',
      '&key=x',
      'key=..',
      '+ +',
      '\u0000',
      'é',
      '日本',
      '🧩',
      '\uFEFF',
      'a%2Fb',
      '%zz',
      '\\',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'binary', minLength: 200, maxLength: 256 }),
  )
  .filter((k) => utf8Bytes(k) >= 1 && utf8Bytes(k) <= 1024 && !/\p{Cs}/u.test(k));

describe('every key the docs allow, through the SDK', () => {
  it('round-trips put and get, with undici and with fetch, under the same key as the node sees it', async () => {
    const node = client();
    const browserLike = client({ fetch: true });
    const base = cluster.nodes[1]!.url;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(docKey, fc.boolean(), async (key, viaFetch) => {
        const value = { run: run++, key };
        const writer = viaFetch ? browserLike : node;
        const reader = viaFetch ? node : browserLike;
        await writer.put(key, value);
        expect((await reader.get(key)).siblings).toContainEqual(value);
        // The node stored it under exactly this key: read it back by ?key=, another way in.
        const raw = await fetch(`${base}/v1/kv/?key=${encodeURIComponent(key)}&missing=ok`);
        const body = (await raw.json()) as { key: string; siblings: { value: unknown }[] };
        expect(body.key).toBe(key);
        expect(body.siblings.map((s) => s.value)).toContainEqual(value);
      }),
      {
        numRuns: 120,
        examples: [
          ['.', false],
          ['..', true],
          ['%', false],
          ['/', true],
          ['🧩/..', false],
        ],
      },
    );
  }, 120_000);

  it('reads a missing key as no siblings, and deletes it as found: false', async () => {
    for (const c of [client(), client({ fetch: true })]) {
      expect(await c.get('..never-written')).toEqual({ key: '..never-written', siblings: [], versions: [] });
      await c.put('.', 'dot');
      expect(await c.delete('.')).toMatchObject({ found: true });
      expect(await c.delete('.')).toEqual({ context: undefined, found: false });
      expect((await c.get('.')).siblings).toEqual([]);
    }
  });
});

describe('errors with nodes down', () => {
  it('a value JSON cannot hold is INVALID_VALUE, sends nothing and marks no node down', async () => {
    const c = client();
    const err = await failure(c.put('json/bigint', { n: 1n }));
    expect(err).toMatchObject({ code: 'INVALID_VALUE', maybeApplied: false });
    expect(c.stats()).toMatchObject({ requests: 0, nodesDown: [] });
  });

  it('w=3 with a node killed: INSUFFICIENT_REPLICAS saying the two others acknowledged', async () => {
    await cluster.nodes[2]!.kill();
    const c = client();
    const err = await failure(c.put('errors/w3', 'v', { w: 3 }));
    // The first attempt may go to the dead node (not sent), the next one is coordinated and answered.
    expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', maybeApplied: true });
    expect(err.attempts).toBeLessThanOrEqual(2);
    expect(err.details).toMatchObject({ needed: 3, answered: 2 });
    expect(err.message).toMatch(/^Only 2 of the 3 replicas a write needs answered/);
    expect((await c.get('errors/w3')).siblings).toEqual(['v']);
  });

  it("r=3 with a node killed: the nodes' verdict, not the last connection refused", async () => {
    const c = client();
    for (let i = 0; i < 5; i++) {
      const err = await failure(c.get(`errors/r3-${i}`, { r: 3 }));
      expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', httpStatus: 503 });
      expect(err.attempts).toBeLessThanOrEqual(3);
    }
  });

  it('update with two of three nodes down fails within its deadline, with a verdict of the live node', async () => {
    const hung = cluster.nodes[1]!.pid!;
    process.kill(hung, 'SIGSTOP');
    stopped.push(hung);
    const c = client();
    const started = Date.now();
    // An attempt on the hung node costs timeoutMs; the live node's verdict takes a peer timeout (1 s).
    const err = await failure(
      c.update('errors/update', (v) => v ?? 1, { deadlineMs: 5_000, timeoutMs: 1_500 }),
    );
    const took = Date.now() - started;
    expect(took).toBeLessThan(6_500);
    expect(['INSUFFICIENT_REPLICAS', 'TIMEOUT'], err.message).toContain(err.code);
    expect(err.nodeId).toBe('n0');
  }, 20_000);
});
