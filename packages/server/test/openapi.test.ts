/**
 * The OpenAPI document (GET /v1/openapi.json) against the routes fastify really registered: every
 * route is in the document and every operation of the document is a route, and the document's
 * request schemas are the ones the routes validate with.
 */
import { EMPTY_CONTEXT, encodeContext } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { createHttpApp, type HttpAppDeps } from '../src/http/app.js';
import { registeredRoutes } from '../src/http/openapi.js';
import { openApiDocument } from '../src/http/openapi-document.js';
import { BATCH_KEYS_MAX, CURSOR_CHARS_MAX } from '../src/http/schemas.js';
import { silentLogger } from '../src/logger.js';
import { NodeMetrics } from '../src/node/metrics.js';
import { appConfig, appDeps } from './http-app-kit.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

type Doc = ReturnType<typeof openApiDocument>;
type Operation = {
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, unknown>;
};

let app: FastifyInstance;
let served: Doc;

beforeAll(async () => {
  // Only validation and the document are exercised: no handler reaches the node.
  app = createHttpApp(appDeps(appConfig()), silentLogger());
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  served = res.json() as Doc;
});

afterAll(async () => {
  await app?.close();
});

/** `METHOD /fastify/:style` of every operation of the document. */
function documented(doc: Doc): string[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m] !== undefined).map(
      (m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    ),
  );
}

function operation(method: string, path: string): Operation {
  const item = served.paths?.[path] as Record<string, Operation> | undefined;
  if (item?.[method] === undefined) throw new Error(`no ${method} ${path} in the document`);
  return item[method];
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and is what /v1/openapi.json serves', () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it('describes every registered route, and only those', () => {
    const routes = registeredRoutes(app).map((r) => `${r.method} ${r.url}`);
    expect(routes.length).toBeGreaterThan(15);
    expect(new Set(routes).size).toBe(routes.length);
    expect([...documented(served)].sort()).toEqual([...routes].sort());
    for (const op of documented(served)) {
      const [method, url] = op.split(' ') as [string, string];
      expect(app.hasRoute({ method: method as 'GET', url }), op).toBe(true);
    }
  });

  it('declares every path parameter, and every schema it refers to', () => {
    for (const [path, item] of Object.entries(served.paths ?? {})) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const method of METHODS) {
        const op = (item as Record<string, Operation | undefined>)[method];
        if (op === undefined) continue;
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), `${method} ${path}`).toEqual([...names].sort());
        expect(Object.keys(op.responses).length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
    const refs = [...JSON.stringify(served).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(served.components?.schemas?.[ref], ref).toBeDefined();
  });

  it('has the request schemas the routes validate with', async () => {
    const batch = operation('post', '/v1/kv/batch-get').requestBody!.content['application/json']!.schema;
    expect(batch).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['keys'],
      properties: { keys: { type: 'array', minItems: 1, maxItems: BATCH_KEYS_MAX } },
    });
    const tooMany = Array.from({ length: BATCH_KEYS_MAX + 1 }, (_, i) => `k${i}`);
    const refused = await app.inject({ method: 'POST', url: '/v1/kv/batch-get', payload: { keys: tooMany } });
    expect(refused.statusCode).toBe(400);

    const list = operation('get', '/v1/kv').parameters!;
    expect(list.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      ['query:cursor', 'query:limit', 'query:prefix', 'query:timeoutMs'].sort(),
    );
    expect(list.find((p) => p.name === 'cursor')!.schema).toMatchObject({ maxLength: CURSOR_CHARS_MAX });
    const unknown = await app.inject({ method: 'GET', url: '/v1/kv?page=2' });
    expect(unknown.statusCode).toBe(400);

    const put = operation('put', '/v1/kv/{key}');
    expect(put.requestBody!.content['application/json']!.schema).toMatchObject({
      additionalProperties: false,
      properties: { context: { type: 'string' } },
    });
    expect(put.parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      ['path:key', 'query:consistency', 'query:key', 'query:timeoutMs', 'query:w'].sort(),
    );
  });

  it('describes how a write was stored in the answers of PUT and DELETE, as the routes render it', async () => {
    const schemas = (served.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
    const answer = (method: string) =>
      JSON.stringify((operation(method, '/v1/kv/{key}').responses['200'] as Record<string, unknown>).content);
    expect(answer('put')).toContain('"$ref":"#/components/schemas/WriteAnswer"');
    expect(answer('delete')).toContain('"$ref":"#/components/schemas/WriteAnswer"');
    expect(schemas.WriteAnswer).toMatchObject({
      required: ['context'],
      properties: { context: { type: 'string' }, stored: { $ref: '#/components/schemas/WriteReceipt' } },
    });
    expect(schemas.WriteReceipt).toMatchObject({
      type: 'object',
      properties: {
        acks: { type: 'array', items: { $ref: '#/components/schemas/WriteAck' } },
        replicas: { type: 'integer' },
        n: { type: 'integer' },
        w: { type: 'integer' },
      },
    });
    expect((schemas.WriteReceipt!.required as string[]).sort()).toEqual(['acks', 'n', 'replicas', 'w']);
    const variants = schemas.WriteAck!.anyOf as {
      properties: Record<string, { enum?: string[] }>;
      required: string[];
    }[];
    expect(variants.map((v) => v.properties.as!.enum)).toEqual([['replica'], ['hint']]);
    expect(variants.map((v) => [...v.required].sort())).toEqual([
      ['as', 'node'],
      ['as', 'for', 'node'],
    ]);

    // A node's answer has exactly the documented fields (the coordinator stands in for a cluster).
    const stored = {
      acks: [
        { node: 'a', as: 'replica' },
        { node: 'd', as: 'hint', for: 'b' },
      ],
      replicas: 1,
      n: 3,
      w: 2,
    };
    const config = parseConfig({ nodeId: 'a', http: '127.0.0.1:0', peer: '127.0.0.1:0', dataDir: 'unused' });
    const writing = createHttpApp(
      {
        config,
        metrics: new NodeMetrics(),
        admission: { recordForeground: () => {} },
        strong: { isStrong: () => false },
        coordinator: {
          write: async (key: string) => ({ context: encodeContext(key, EMPTY_CONTEXT), stored }),
        },
      } as unknown as HttpAppDeps,
      silentLogger(),
    );
    try {
      const put = await writing.inject({ method: 'PUT', url: '/v1/kv/cart-1', payload: { value: 1 } });
      expect(put.statusCode, put.body).toBe(200);
      const body = put.json() as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(Object.keys(schemas.WriteAnswer!.properties!).sort());
      expect(body.stored).toEqual(stored);
      const del = await writing.inject({ method: 'DELETE', url: '/v1/kv/cart-1', payload: {} });
      expect(del.statusCode, del.body).toBe(200);
      expect(del.json()).toEqual({ context: expect.any(String), stored });
    } finally {
      await writing.close();
    }
  });

  it('marks /health and /ui open, and the rest behind an optional bearer token', () => {
    expect(served.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(served.security).toEqual([{ bearer: [] }, {}]);
    expect((operation('get', '/health') as { security?: unknown }).security).toEqual([]);
    expect((operation('get', '/ui') as { security?: unknown }).security).toEqual([]);
  });
});
