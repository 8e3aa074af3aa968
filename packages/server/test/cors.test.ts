/**
 * The browser path of the HTTP API, in process (fastify inject): CORS for the origins in
 * `corsOrigins` only (preflights answered before authentication, every answer readable, errors
 * included), none without it; `?missing=ok`; and `?key=` for the keys `.` and `..`.
 */
import { EMPTY_STATE, encodeContext, TesseraError } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { corsOrigins } from '../src/cli/start.js';
import { parseConfig } from '../src/config.js';
import { createHttpApp } from '../src/http/app.js';
import { silentLogger } from '../src/logger.js';
import { appConfig, appDeps } from './http-app-kit.js';

const PAGE = 'http://page.test:3000';
const OTHER = 'http://evil.test';
const TOKEN = 'client-token-0123456789';
const ADMIN = 'admin-token-0123456789';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** A node's HTTP app whose coordinator holds `stored` (key to value) and nothing else. */
async function app(settings: Record<string, unknown>, stored: Record<string, unknown> = {}) {
  const config = appConfig(settings);
  const writes: { key: string; value: Uint8Array | undefined }[] = [];
  const stateOf = (key: string) =>
    key in stored
      ? {
          vv: [{ node: 'a', counter: 1, timestampMs: 1 }],
          siblings: [
            {
              dot: { node: 'a', counter: 1 },
              lastModifiedMs: 1,
              value: new TextEncoder().encode(JSON.stringify(stored[key])),
            },
          ],
        }
      : EMPTY_STATE;
  const deps = appDeps(config, {
    coordinator: {
      get: async (key: string) => ({
        state: stateOf(key),
        context: encodeContext(key, { vv: [], dots: [] }),
      }),
      write: async (key: string, options: { value: Uint8Array | undefined; context?: string }) => {
        if (options.value === undefined && options.context === undefined && !(key in stored)) {
          throw new TesseraError('NOT_FOUND', `Key "${key}" has no value to delete.`);
        }
        writes.push({ key, value: options.value });
        return { context: encodeContext(key, { vv: [], dots: [] }) };
      },
    },
    store: { read: async () => undefined },
  });
  const a = createHttpApp(deps, silentLogger());
  apps.push(a);
  await a.ready();
  return { app: a, writes };
}

const preflight = (origin: string, method = 'PUT') => ({
  method: 'OPTIONS' as const,
  url: '/v1/kv/cart-1',
  headers: {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type,authorization',
  },
});

describe('CORS', () => {
  it('answers a preflight of a listed origin before authentication, and caches it', async () => {
    const { app: a } = await app({ corsOrigins: [PAGE], token: TOKEN, adminToken: ADMIN });
    const res = await a.inject(preflight(PAGE));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(String(res.headers['access-control-allow-methods']).split(/, ?/)).toEqual(
      expect.arrayContaining(['GET', 'PUT', 'DELETE', 'POST']),
    );
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/content-type.*authorization/);
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(String(res.headers.vary)).toMatch(/Origin/i);
  });

  it('makes every answer readable to a listed origin, errors included, and exposes Retry-After', async () => {
    const { app: a } = await app({ corsOrigins: [PAGE], token: TOKEN, adminToken: ADMIN }, { k: 1 });
    const auth = { origin: PAGE, authorization: `Bearer ${TOKEN}` };
    const ok = await a.inject({ method: 'GET', url: '/v1/kv/k', headers: auth });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    expect(ok.headers['access-control-expose-headers']).toBe('retry-after, etag');
    for (const res of [
      await a.inject({ method: 'GET', url: '/v1/kv/k', headers: { origin: PAGE } }),
      await a.inject({ method: 'GET', url: '/v1/nothing', headers: auth }),
      await a.inject({ method: 'PUT', url: '/v1/kv/k', headers: auth, payload: { nope: 1 } }),
    ]) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.json()).toHaveProperty('error.code');
      expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    }
  });

  it('gives an origin not listed no CORS header, so its page cannot read anything', async () => {
    const { app: a } = await app({ corsOrigins: [PAGE] });
    const pre = await a.inject(preflight(OTHER));
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await a.inject({ method: 'GET', url: '/v1/kv/k', headers: { origin: OTHER } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends no CORS header at all without corsOrigins', async () => {
    const { app: a } = await app({});
    const pre = await a.inject(preflight(PAGE));
    expect(pre.statusCode).toBe(404);
    expect(pre.json()).toMatchObject({ error: { code: 'ROUTE_NOT_FOUND' } });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await a.inject({ method: 'GET', url: '/health', headers: { origin: PAGE } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows every origin with *', async () => {
    const { app: a } = await app({ corsOrigins: ['*'] });
    const res = await a.inject({ method: 'GET', url: '/health', headers: { origin: OTHER } });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('takes origins only, from a config list or --cors-origin flags with commas', () => {
    const base = { nodeId: 'a', http: '127.0.0.1:0', peer: '127.0.0.1:0', dataDir: 'x' };
    expect(
      parseConfig({ ...base, corsOrigins: [PAGE, 'https://shop.example.com', '*'] }).corsOrigins,
    ).toHaveLength(3);
    for (const bad of [
      'http://page.test:3000/',
      'https://shop.example.com/app',
      'shop.example.com',
      'ftp://x',
    ]) {
      expect(() => parseConfig({ ...base, corsOrigins: [bad] }), bad).toThrow(/corsOrigins/);
    }
    expect(corsOrigins(['http://a.test, http://b.test', '*'])).toEqual([
      'http://a.test',
      'http://b.test',
      '*',
    ]);
    expect(corsOrigins(undefined)).toBeUndefined();
  });
});

describe('?missing=ok', () => {
  it('answers a read of a key with no value 200 with no siblings; without it, 404 as before', async () => {
    const { app: a } = await app({});
    const ok = await a.inject({ method: 'GET', url: '/v1/kv/none?missing=ok' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ key: 'none', siblings: [] });
    const notFound = await a.inject({ method: 'GET', url: '/v1/kv/none' });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const bad = await a.inject({ method: 'GET', url: '/v1/kv/none?missing=maybe' });
    expect(bad.statusCode).toBe(400);
  });

  it('answers a delete without context of a key with no value 200 { found: false }', async () => {
    const { app: a, writes } = await app({});
    const ok = await a.inject({ method: 'DELETE', url: '/v1/kv/none?missing=ok' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ found: false });
    expect((await a.inject({ method: 'DELETE', url: '/v1/kv/none' })).statusCode).toBe(404);
    expect(writes).toEqual([]);
  });
});

describe('?key=', () => {
  it('addresses `.` and `..`, which no URL path can carry, after /v1/kv/', async () => {
    const { app: a, writes } = await app({}, { '..': 'up' });
    const read = await a.inject({ method: 'GET', url: '/v1/kv/?key=..' });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ key: '..', siblings: [{ value: 'up' }] });
    const put = await a.inject({ method: 'PUT', url: '/v1/kv/?key=.&w=1', payload: { value: 1 } });
    expect(put.statusCode).toBe(200);
    expect(writes.map((w) => w.key)).toEqual(['.']);
    const dotted = await a.inject({
      method: 'GET',
      url: `/v1/kv/?key=${encodeURIComponent('a/b?c')}&missing=ok`,
    });
    expect(dotted.json()).toEqual({ key: 'a/b?c', siblings: [] });
  });

  it('refuses a key both in the path and in ?key=, and an empty one', async () => {
    const { app: a } = await app({});
    const both = await a.inject({ method: 'GET', url: '/v1/kv/x?key=y' });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    const empty = await a.inject({ method: 'GET', url: '/v1/kv/?key=' });
    expect(empty.json()).toMatchObject({ error: { code: 'INVALID_KEY' } });
    const none = await a.inject({ method: 'GET', url: '/v1/kv/' });
    expect(none.json()).toMatchObject({ error: { code: 'INVALID_KEY' } });
  });
});
