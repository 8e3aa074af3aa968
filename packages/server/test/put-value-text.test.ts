/**
 * A put stores its value as the JSON text the client sent and a get returns that text (docs/api.md):
 * through the data path, through fastify's route (a request with a query string), and for a strong
 * key. Parsing and serializing the value again rounded 12345678901234567890 to 12345678901234567000.
 */
import type { AddressInfo } from 'node:net';
import { encodeContext, type KeyState } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../src/http/app.js';
import { sentValue } from '../src/http/json-body.js';
import { silentLogger } from '../src/logger.js';
import { http } from './helpers.js';
import { appConfig, appDeps } from './http-app-kit.js';

/** Values whose text a parse and a serialize would change. */
const VALUES = [
  '12345678901234567890',
  '{"id": 12345678901234567890, "price": 1.50, "e": 1E3}',
  '["caf\\u00e9", "a\\/b", -0.0]',
  '{\n  "nested": [ { "deep": 9007199254740993 } ]\n}',
];

const stored = new Map<string, Uint8Array>();
const strongTexts = new Map<string, string | undefined>();
let transacted: readonly { readonly type: string; readonly value?: string }[] = [];
let app: FastifyInstance;
let port = 0;

function stateOf(key: string): KeyState {
  const value = stored.get(key);
  if (value === undefined) return { vv: [], siblings: [] };
  return {
    vv: [{ node: 'a', counter: 1, timestampMs: 1 }],
    siblings: [{ dot: { node: 'a', counter: 1 }, lastModifiedMs: 1, value }],
  };
}

beforeAll(async () => {
  const deps = appDeps(appConfig(), {
    strong: {
      isStrong: (key: string) => key.startsWith('strong/'),
      deadline: () => Date.now() + 1_000,
      transactions: {
        transact: async (actions: readonly { type: string; value?: string }[]) => {
          transacted = actions;
          return {};
        },
      },
      keys: {
        write: async (key: string, text: string | undefined) => {
          strongTexts.set(key, text);
          return { value: text, version: 1n };
        },
      },
    },
    coordinator: {
      get: async (key: string) => ({
        state: stateOf(key),
        context: encodeContext(key, { vv: [], dots: [] }),
      }),
      write: async (key: string, options: { value: Uint8Array | undefined }) => {
        if (options.value !== undefined) stored.set(key, options.value);
        return { context: encodeContext(key, { vv: [{ node: 'a', counter: 1, timestampMs: 1 }], dots: [] }) };
      },
    },
    store: { read: async () => undefined },
  });
  app = createHttpApp(deps, silentLogger(), { dataPath: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await app.close();
});

/** A call to the app; the answer's body as text, as sent. */
async function send(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
  const options = body === undefined ? {} : { raw: body, headers: { 'content-type': 'application/json' } };
  const reply = await http(`http://127.0.0.1:${port}`, method, path, options);
  return { status: reply.status, body: reply.text };
}

describe('a put value as sent', () => {
  it.each([
    ['the data path', ''],
    ["fastify's route", '?w=2'],
  ])('is stored and read back byte for byte through %s', async (_front, query) => {
    for (const [i, value] of VALUES.entries()) {
      const key = `k${i}${query === '' ? 'lean' : 'routed'}`;
      const put = await send('PUT', `/v1/kv/${key}${query}`, `{ "value" :  ${value}  }`);
      expect(put.status, put.body).toBe(200);
      expect(new TextDecoder().decode(stored.get(key))).toBe(value);
      const got = await send('GET', `/v1/kv/${key}${query === '' ? '' : '?r=2'}`);
      expect(got.status).toBe(200);
      expect(got.body).toContain(`"siblings":[{"value":${value},"lastModified"`);
    }
  });

  it('is written to a strong key as sent', async () => {
    const put = await send('PUT', '/v1/kv/strong%2Fa', `{"value": ${VALUES[1]}}`);
    expect(put.status, put.body).toBe(200);
    expect(strongTexts.get('strong/a')).toBe(VALUES[1]);
  });

  it('still refuses bodies the parser refuses, with the same codes on both fronts', async () => {
    for (const query of ['', '?w=2']) {
      const poisoned = await send('PUT', `/v1/kv/p${query}`, '{"value": {"__proto__": {"x": 1}}}');
      expect(poisoned.status).toBe(400);
      const broken = await send('PUT', `/v1/kv/p${query}`, '{"value": 12345678901234567890');
      expect(broken.status).toBe(400);
    }
  });

  it("is written by a transaction's puts as sent, each to its own key", async () => {
    const body = `{"actions": [
      {"type": "put", "key": "strong/x", "value": ${VALUES[1]}},
      {"type": "delete", "key": "strong/y"},
      {"value": ${VALUES[0]}, "type": "put", "key": "strong/z"}
    ]}`;
    const answer = await send('POST', '/v1/transactions', body);
    expect(answer.status, answer.body).toBe(200);
    expect(transacted.map((a) => a.value)).toEqual([VALUES[1], undefined, VALUES[0]]);
  });
});

describe("a write's answer, rendered by hand", () => {
  it('is JSON typed as fastify types what it serializes, from a put on both fronts and a delete', async () => {
    const calls: [string, string, string][] = [
      ['PUT', '/v1/kv/answer', '{"value":1}'],
      ['PUT', '/v1/kv/answer?w=2', '{"value":1}'],
      ['DELETE', '/v1/kv/answer', '{}'],
    ];
    for (const [method, path, body] of calls) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(JSON.parse(await res.text())).toEqual({ context: expect.any(String) });
    }
  });
});

describe('sentValue', () => {
  it('gives the value as sent, serializing the parsed value only when the text is unknown', () => {
    expect(sentValue(1, '{"value": 1.0}')).toBe('1.0');
    expect(sentValue({ a: 1 }, undefined)).toBe('{"a":1}');
  });
});
