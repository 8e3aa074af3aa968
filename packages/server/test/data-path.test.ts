/**
 * The data path (src/http/data-path.ts) against fastify: the same requests, over real sockets, to
 * an app with the data path and one without give the same status, content type, Retry-After and
 * body bytes, for the requests it takes (plain gets and puts, their errors) and for those it must
 * leave to fastify (queries, bad encodings, other media types, tokens, refusals). A hook counts
 * what fastify answered, so the test also shows which front answered.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY_STATE, encodeContext, type KeyState, TesseraError } from '@tessera/core';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/http/app.js';
import { silentLogger } from '../src/logger.js';
import { appConfig, appDeps } from './http-app-kit.js';

const TOKEN = 'client-token-0123456789';
const ADMIN = 'admin-token-0123456789';

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

interface Front {
  readonly port: number;
  /** Requests that fastify answered (its onResponse hooks ran). */
  fastifyRequests: number;
}

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A stored key's state: one sibling whose value is the key's own name. */
function stateOf(key: string): KeyState {
  if (key.startsWith('missing')) return EMPTY_STATE;
  return Object.freeze({
    vv: [{ node: 'a', counter: 1, timestampMs: 1 }],
    siblings: [
      {
        dot: { node: 'a', counter: 1 },
        lastModifiedMs: 1,
        value: new TextEncoder().encode(JSON.stringify(key)),
      },
    ],
  });
}

async function front(dataPath: boolean, settings: Record<string, unknown> = {}, refuse?: TesseraError) {
  const config = appConfig(settings);
  const deps = appDeps(config, {
    strong: { isStrong: (key: string) => key.startsWith('strong/') },
    refuseClients: () => refuse,
    coordinator: {
      get: async (key: string) => {
        if (key.startsWith('down'))
          throw new TesseraError('INSUFFICIENT_REPLICAS', 'Only 1 of the 2 replicas.');
        return { state: stateOf(key), context: encodeContext(key, { vv: stateOf(key).vv, dots: [] }) };
      },
      write: async (key: string, options: { value: Uint8Array | undefined; context?: string }) => {
        if (key.startsWith('down')) throw new TesseraError('TIMEOUT', 'The write deadline passed.');
        const counter = (options.value?.length ?? 0) + (options.context?.length ?? 0);
        return { context: encodeContext(key, { vv: [{ node: 'a', counter, timestampMs: 1 }], dots: [] }) };
      },
    },
    store: { read: async () => undefined },
  });
  const app = createHttpApp(deps, silentLogger(), { dataPath });
  const counted: Front = { port: 0, fastifyRequests: 0 };
  app.addHook('onResponse', (_req, _reply, done) => {
    counted.fastifyRequests++;
    done();
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return Object.assign(counted, { port: (app.server.address() as AddressInfo).port });
}

function send(
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const all =
      body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          retryAfter: res.headers['retry-after'] as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Sends the request to both fronts; expects the same answer, and says which front took it. */
async function same(
  pair: { lean: Front; plain: Front },
  method: string,
  path: string,
  body?: string,
  headers?: Record<string, string>,
): Promise<{ answer: Answer; tookIt: boolean }> {
  const before = pair.lean.fastifyRequests;
  const [lean, plain] = await Promise.all([
    send(pair.lean.port, method, path, body, headers),
    send(pair.plain.port, method, path, body, headers),
  ]);
  expect(lean, `${method} ${path} ${body ?? ''}`).toEqual(plain);
  return { answer: lean, tookIt: pair.lean.fastifyRequests === before };
}

describe('the data path answers as fastify does', () => {
  const pair = async (settings: Record<string, unknown> = {}, refuse?: TesseraError) => ({
    lean: await front(true, settings, refuse),
    plain: await front(false, settings, refuse),
  });

  it('takes plain gets and puts, found or not, and their errors', async () => {
    const p = await pair();
    const taken = [
      ['GET', '/v1/kv/cart-1'],
      ['GET', '/v1/kv/missing-1'],
      ['GET', '/v1/kv/%C3%A9t%C3%A9%2Fhiver'],
      ['GET', '/v1/kv/down-1'],
      ['GET', `/v1/kv/${'k'.repeat(1025)}`],
      ['PUT', '/v1/kv/cart-1', '{"value":["apple"]}'],
      ['PUT', '/v1/kv/cart-1', '{"value":{"a":[1,2,{"b":null}]},"context":"c1.abc"}'],
      ['PUT', '/v1/kv/down-1', '{"value":1}'],
      ['PUT', '/v1/kv/cart-1', '{"value":1,"extra":2}'],
      ['PUT', '/v1/kv/cart-1', '{"context":"c1.abc"}'],
      ['PUT', '/v1/kv/cart-1', '{"value": [1, 2'],
      ['PUT', '/v1/kv/cart-1', '{"value":{"__proto__":{"x":1}}}'],
      ['PUT', '/v1/kv/cart-1', `{"value":${'['.repeat(101)}${']'.repeat(101)}}`],
      ['PUT', '/v1/kv/cart-1', '[1,2]'],
    ] as const;
    for (const [method, path, body] of taken) {
      const { answer, tookIt } = await same(p, method, path, body, body === undefined ? {} : JSON_HEADERS);
      expect(tookIt, `${method} ${path} ${body ?? ''} -> ${answer.status}`).toBe(true);
    }
    for (const type of ['Application/JSON', 'application/json; charset=UTF-8']) {
      const { tookIt } = await same(p, 'PUT', '/v1/kv/cart-2', '{"value":2}', { 'content-type': type });
      expect(tookIt, type).toBe(true);
    }
    const found = await send(p.lean.port, 'GET', '/v1/kv/%C3%A9t%C3%A9%2Fhiver');
    expect(JSON.parse(found.body)).toMatchObject({ key: 'été/hiver', siblings: [{ value: 'été/hiver' }] });
  });

  it('leaves to fastify what it does not handle exactly, with the same answers', async () => {
    const p = await pair();
    const text = { 'content-type': 'text/plain' };
    for (const path of ['/v1/kv/%E0%A4%A', '/v1/kv/%ED%A0%80', `/v1/kv/${'k'.repeat(8 * 1024 + 1)}`]) {
      await same(p, 'GET', path);
    }
    const left: readonly [string, string, string?, Record<string, string>?][] = [
      ['GET', '/v1/kv/cart-1?r=1'],
      ['GET', '/v1/kv/cart-1?bogus=1'],
      ['GET', '/v1/kv/?key=..'],
      ['GET', '/v1/kv/a/b'],
      ['GET', '/v1/kv/a;b'],
      ['GET', '/v1/kv/strong/1'],
      ['HEAD', '/v1/kv/cart-1'],
      ['DELETE', '/v1/kv/cart-1'],
      ['PUT', '/v1/kv/cart-1', '{"value":1}', text],
      ['PUT', '/v1/kv/cart-1', '{"value":1}', {}],
      ['PUT', '/v1/kv/cart-1', '{"value":1}', { 'content-type': 'application/json; charset=latin1' }],
      ['PUT', '/v1/kv/cart-1', '', JSON_HEADERS],
      ['PUT', '/v1/kv/cart-1?w=1', '{"value":1}', JSON_HEADERS],
      ['PUT', '/v1/kv/cart-1', `{"value":"${'x'.repeat(1_200_000)}"}`, JSON_HEADERS],
    ];
    for (const [method, path, body, headers] of left) {
      const { answer, tookIt } = await same(p, method, path, body, headers);
      expect(tookIt, `${method} ${path.slice(0, 40)} -> ${answer.status}`).toBe(false);
    }
  });

  it('with tokens: takes a request with the client or admin token, leaves the rest to fastify', async () => {
    const p = await pair({ token: TOKEN, adminToken: ADMIN });
    for (const [authorization, taken] of [
      [`Bearer ${TOKEN}`, true],
      [`bearer ${ADMIN}`, true],
      ['Bearer wrong-token-0123456789', false],
      [undefined, false],
    ] as const) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
      const { answer, tookIt } = await same(p, 'GET', '/v1/kv/cart-1', undefined, headers);
      expect([tookIt, answer.status]).toEqual([taken, taken ? 200 : 401]);
    }
  });

  it('refuses as fastify does when the node refuses clients, Retry-After included', async () => {
    const p = await pair({}, new TesseraError('OVERLOADED', 'This node is serving 5 requests, its limit.'));
    const { answer, tookIt } = await same(p, 'GET', '/v1/kv/cart-1');
    expect([tookIt, answer.status, answer.retryAfter]).toEqual([true, 503, '1']);
  });

  it('leaves a conditional write to fastify, which refuses it for a plain key instead of writing a sibling', async () => {
    const both = await pair();
    const conditions: Record<string, string>[] = [{ 'if-match': '"1"' }, { 'if-none-match': '*' }];
    for (const condition of conditions) {
      const headers = { ...JSON_HEADERS, ...condition };
      const { answer, tookIt } = await same(both, 'PUT', '/v1/kv/plain-cond', '{"value":1}', headers);
      expect(tookIt).toBe(false);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('takes a context from a read, not If-Match or If-None-Match');
      const deleted = await same(both, 'DELETE', '/v1/kv/plain-cond', undefined, condition);
      expect(deleted.answer.status).toBe(400);
    }
  });

  it('gets and puts any key the same way (property)', async () => {
    const p = await pair();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
        fc.jsonValue(),
        async (key, value) => {
          const path = `/v1/kv/${encodeURIComponent(key)}`;
          await same(p, 'GET', path);
          await same(p, 'PUT', path, JSON.stringify({ value }), JSON_HEADERS);
        },
      ),
      { numRuns: 150 },
    );
  });
});
