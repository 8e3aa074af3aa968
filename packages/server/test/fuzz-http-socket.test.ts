/**
 * The HTTP API at the socket level, against a real node process: malformed and mutated raw
 * requests, bodies far above the limit, clients that trickle their headers or body (slowloris),
 * and more connections than the node allows. Every answer is coded and below 500, the node stays
 * up with bounded memory, and what it stored is intact.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, MiB, parseRaw, rssBytes, send, sendRaw, watchRss } from './fuzz-kit.js';
import { configFile, startCluster, type TestCluster, waitFor } from './helpers.js';

const VALUE_BYTES_MAX = 64 * 1024;
const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const CONNECTIONS_MAX = 40;
const RSS_BYTES_MAX = 400 * MiB;
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let cluster: TestCluster;
let url: string;
let pid: number;
let rss: ReturnType<typeof watchRss>;
let before: string;

beforeAll(async () => {
  const config = await configFile({
    httpHeadersTimeoutMs: HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: REQUEST_TIMEOUT_MS,
    httpConnectionsMax: CONNECTIONS_MAX,
  });
  cluster = await startCluster(1, [
    '--config',
    config,
    '--n',
    '1',
    '--r',
    '1',
    '--w',
    '1',
    '--value-bytes-max',
    `${VALUE_BYTES_MAX}`,
  ]);
  url = cluster.nodes[0]!.url;
  pid = cluster.nodes[0]!.pid!;
  rss = watchRss(pid);
  const put = await send(url, 'PUT', '/v1/kv/kept', {
    body: JSON.stringify({ value: { kept: true } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(put.status).toBe(200);
  before = (await send(url, 'GET', '/v1/kv/kept')).text;
}, 60_000);

afterAll(async () => {
  await rss?.stop();
  await cluster?.destroy();
});

/** Every response in `text` is below 500 and in the documented shape. */
function expectCodedReplies(text: string, what: string): void {
  for (const reply of parseRaw(text)) {
    expect(reply.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
    if (reply.status >= 400) expectErrorShape(reply.status, reply.body, what);
  }
}

const validPut = (body = '{"value":[1,2,3]}'): string =>
  `PUT /v1/kv/raw HTTP/1.1\r\nHost: node\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const MALFORMED: readonly string[] = [
  'GET /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/kv/a HTTP/1.1\r\nHost: x\r\n\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}\r\n',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
  'GET /v1/kv/a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET  HTTP/1.1\r\nHost: x\r\n\r\n',
  'BREW /v1/kv/a HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /v1/kv/a HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /v1/kv/a HTTP/1.0\r\n\r\n',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  'GET /v1/kv/a HTTP/1.1\r\nHost x\r\n\r\n',
  'GET /v1/kv/a HTTP/1.1\r\nHost : x\r\n\r\n',
  'GET /v1/kv/a HTTP/1.1\r\nHost: x\r\nX-Fold: a\r\n  b\r\n\r\n',
  `GET /v1/kv/a HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
  `GET /v1/kv/a HTTP/1.1\r\nHost: x\r\n${'X-H: 1\r\n'.repeat(3_000)}\r\n`,
  '\r\n\r\n\r\n',
  '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
  'PUT /v1/kv/a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n{"value":1}',
  'GET http://elsewhere.example/v1/kv/a HTTP/1.1\r\nHost: x\r\n\r\n',
  'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /v1/kv/a HTTP/1.1\r\n\r\n',
  'GET /v1/kv/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n',
  `GET /v1/kv/${'a'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  `${validPut()}${validPut('{"value":"second"}')}`,
];

describe('HTTP at the socket level', () => {
  it.each(MALFORMED.map((m, i) => [i, m]))(
    'answers malformed request #%i with a coded 4xx or closes',
    async (_i, raw) => {
      const { text } = await sendRaw(url, raw, 3_000, { end: true });
      expectCodedReplies(text, JSON.stringify(raw.slice(0, 100)));
    },
  );

  it('answers byte-mutated requests with coded replies below 500', async () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({
        kind: fc.constant('insert' as const),
        at: fc.nat(),
        byte: fc.integer({ min: 0, max: 255 }),
      }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), byte: fc.constant(0) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 6 }), async (mutations) => {
        const bytes = [...Buffer.from(validPut(), 'latin1')];
        for (const m of mutations) {
          const at = m.at % (bytes.length + 1);
          if (m.kind === 'flip' && at < bytes.length) bytes[at] = m.byte;
          else if (m.kind === 'insert') bytes.splice(at, 0, m.byte);
          else if (m.kind === 'delete') bytes.splice(at, 1);
        }
        const { text } = await sendRaw(url, Uint8Array.from(bytes), 3_000, { end: true });
        expectCodedReplies(text, JSON.stringify(mutations));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses a body declared far above the limit with 413 at once, without reading it', async () => {
    const started = Date.now();
    const head = `PUT /v1/kv/huge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${1024 * MiB}\r\n\r\n`;
    const { text } = await sendRaw(url, `${head}{"value":"${'x'.repeat(64 * 1024)}`, 5_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(parseRaw(text)[0]?.status).toBe(413);
    expectCodedReplies(text, 'declared 1 GiB');
  });

  it('stops a chunked body at the limit with 413, long before the client is done', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    let answered = false;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      answered = true;
    });
    let reset = false;
    socket.on('error', () => {
      reset = true;
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'PUT /v1/kv/huge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
    let sentBytes = 0;
    while (!answered && !reset && !socket.destroyed && sentBytes < 64 * MiB) {
      if (!socket.write(chunk)) await new Promise((r) => setTimeout(r, 5));
      sentBytes += chunk.length;
    }
    socket.destroy();
    await closed;
    // The node answers 413 and closes; the reset of a connection still sending can beat the answer to us.
    const reply = parseRaw(Buffer.concat(chunks).toString('latin1'))[0];
    if (reply !== undefined) {
      expect(reply.status).toBe(413);
      expectErrorShape(reply.status, reply.body, 'chunked huge body');
    }
    expect(answered || reset).toBe(true);
    expect(sentBytes).toBeLessThan(16 * MiB);
    expect(await rssBytes(pid)).toBeLessThan(RSS_BYTES_MAX);
  });

  it('cuts off a client that trickles its headers (slowloris) with 408, and keeps serving others', async () => {
    const result = trickle('GET /v1/kv/kept HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'a');
    // Others are served while the slow client hangs on.
    expect((await send(url, 'GET', '/v1/kv/kept')).status).toBe(200);
    const { afterMs, text } = await result;
    expect(afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2_500);
    expect(parseRaw(text)[0]?.status).toBe(408);
    expectCodedReplies(text, 'slow headers');
  });

  it('cuts off a client that trickles its body with 408', async () => {
    const { afterMs, text } = await trickle(
      'PUT /v1/kv/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"value":"',
      'b',
    );
    expect(afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2_500);
    expect(parseRaw(text)[0]?.status).toBe(408);
    expectCodedReplies(text, 'slow body');
  });

  it(`closes connections past httpConnectionsMax (${CONNECTIONS_MAX}) and serves again once they go`, async () => {
    const port = Number(new URL(url).port);
    const sockets = Array.from({ length: CONNECTIONS_MAX + 20 }, () => connect(port, '127.0.0.1'));
    const closedEarly = sockets.map((s) => {
      s.on('error', () => {});
      return new Promise<boolean>((resolve) => {
        s.on('close', () => resolve(true));
        setTimeout(() => resolve(false), 1_000);
      });
    });
    const closed = (await Promise.all(closedEarly)).filter(Boolean).length;
    expect(closed).toBeGreaterThanOrEqual(20 - 1);
    for (const s of sockets) s.destroy();
    // Once the node has seen the idle connections go, new ones are served again.
    await waitFor(
      async () => (await send(url, 'GET', '/v1/kv/kept').catch(() => undefined))?.status === 200,
      5_000,
      'the node serves new connections once the others closed',
    );
    const metrics = await send(url, 'GET', '/metrics');
    expect(metrics.text).toMatch(/tessera_http_connections_dropped_total [1-9]/);
  });

  it('keeps what it stored, stays up, and stays within bounded memory', async () => {
    expect((await send(url, 'GET', '/v1/kv/kept')).text).toBe(before);
    expect(await rss.stop()).toBeLessThan(RSS_BYTES_MAX);
  });
});

/** Sends `head`, then one `unit` every 200 ms until the node closes the connection (10 s at most). */
async function trickle(head: string, unit: string): Promise<{ afterMs: number; text: string }> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  const started = Date.now();
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(unit);
  }, 200);
  await new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    setTimeout(() => resolve(), 10_000);
  });
  clearInterval(timer);
  socket.destroy();
  return { afterMs: Date.now() - started, text: Buffer.concat(chunks).toString('latin1') };
}
