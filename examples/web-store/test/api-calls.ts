/** Calls to the store's API in-process (fastify inject), for the route tests. */
import { expect } from 'vitest';
import type { ErrorBody } from '../src/shared/api.js';
import type { Harness } from './harness.js';

export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

export async function callApp(h: Harness, c: Call): Promise<{ status: number; json: unknown }> {
  const headers = { ...(c.body === undefined ? {} : { 'content-type': 'application/json' }), ...c.headers };
  const payload = c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body));
  const res = await h.app.inject({
    method: c.method,
    url: c.url,
    headers,
    ...(payload === undefined ? {} : { payload }),
  });
  return { status: res.statusCode, json: res.body === '' ? undefined : res.json() };
}

export async function expectAppError(h: Harness, c: Call, status: number, code: string): Promise<void> {
  const { status: got, json } = await callApp(h, c);
  expect({ status: got, code: (json as ErrorBody).error?.code }).toEqual({ status, code });
  expect((json as ErrorBody).error.message.length).toBeGreaterThan(10);
}
