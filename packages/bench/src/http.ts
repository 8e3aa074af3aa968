/** The HTTP calls of the load, over undici pools with keep-alive. */
import { Pool } from 'undici';
import type { Outcome } from './recorder.js';

export interface ReadOutcome extends Outcome {
  readonly context?: string;
  readonly found?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Client-side bound per request; the server's own deadline (2 s by default) is shorter. */
const REQUEST_TIMEOUT_MS = 30_000;

export function createPool(url: string, connections: number): Pool {
  return new Pool(url, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
}

export function kvPath(key: string): string {
  return `/v1/kv/${encodeURIComponent(key)}`;
}

/** GET a key: siblings and context when found; NOT_FOUND (with the tombstone's context, when there is one) when not. */
export async function getKey(pool: Pool, key: string): Promise<ReadOutcome> {
  const res = await pool.request({ method: 'GET', path: kvPath(key) });
  const text = await res.body.text();
  if (res.statusCode === 200) {
    const body = JSON.parse(text) as { context?: unknown; siblings?: unknown };
    const siblings = Array.isArray(body.siblings) ? body.siblings.length : 0;
    return typeof body.context === 'string'
      ? { found: true, siblings, context: body.context }
      : { found: true, siblings };
  }
  const code = errorCodeOf(res.statusCode, text);
  if (res.statusCode === 404) {
    const context = contextOf(text);
    return context === undefined ? { error: code, found: false } : { error: code, found: false, context };
  }
  return { error: code };
}

export async function putKey(pool: Pool, key: string, body: string): Promise<Outcome> {
  const res = await pool.request({ method: 'PUT', path: kvPath(key), headers: JSON_HEADERS, body });
  const text = await res.body.text();
  return res.statusCode === 200 ? {} : { error: errorCodeOf(res.statusCode, text) };
}

/** Plain requests for the bare fastify baseline. */
export async function request(
  pool: Pool,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<Outcome> {
  const res =
    body === undefined
      ? await pool.request({ method, path })
      : await pool.request({ method, path, headers: JSON_HEADERS, body });
  await res.body.text();
  return res.statusCode === 200 ? {} : { error: `HTTP_${res.statusCode}` };
}

/** `error.code` from an error body, or HTTP_<status>. */
export function errorCodeOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown } };
    if (typeof body.error?.code === 'string') return body.error.code;
  } catch {
    // not JSON
  }
  return `HTTP_${status}`;
}

function contextOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { context?: unknown };
    return typeof body.context === 'string' ? body.context : undefined;
  } catch {
    return undefined;
  }
}
