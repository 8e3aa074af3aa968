/**
 * Pieces shared by the fuzzing, overload and crash tests: raw HTTP over a socket, plain requests
 * through node:http (which, unlike fetch, sends whatever headers and methods it is given), the
 * documented error shape, and the resident memory of a node process.
 */
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { ERROR_CODES, isNodeErrorCode } from '@tessera/core';
import { expect } from 'vitest';

export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One request through node:http; `body` is sent as is. */
export function send(
  base: string,
  method: string,
  path: string,
  options: {
    body?: Uint8Array | string;
    headers?: Record<string, string | string[]>;
    timeoutMs?: number;
    /** A connection of its own per request instead of the shared keep-alive pool of 16. */
    ownConnection?: boolean;
  } = {},
): Promise<RawReply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: options.ownConnection === true ? false : agent,
        headers: {
          ...(options.body === undefined ? {} : { 'content-length': Buffer.byteLength(options.body) }),
          ...options.headers,
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} in time`)));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Writes `bytes` to a fresh connection and reads until the node closes it (or `timeoutMs`); `closed` says which. */
export function sendRaw(
  base: string,
  bytes: Uint8Array | string,
  timeoutMs = 5_000,
  options: { end?: boolean } = {},
): Promise<{ text: string; closed: boolean }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => finish(false), timeoutMs);
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(bytes);
    // Half-close: a request cut short is answered (or dropped) at once instead of waited for.
    if (options.end === true) socket.end();
  });
}

/** The status and body (JSON when it parses) of each response in raw socket output. */
export function parseRaw(text: string): { status: number; body: unknown }[] {
  const replies: { status: number; body: unknown }[] = [];
  let rest = text;
  for (;;) {
    const head = /^HTTP\/1\.[01] (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(rest);
    if (head === null) return replies;
    const length = /(?:^|\r\n)content-length:\s*(\d+)/i.exec(head[2]!);
    const after = rest.slice(head[0].length);
    const bodyText = length === null ? after : after.slice(0, Number(length[1]));
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = bodyText;
    }
    replies.push({ status: Number(head[1]), body });
    rest = after.slice(bodyText.length);
  }
}

/** Fails unless `body` is `{ error: { code, message, details? } }` with the status of `code`. */
export function expectErrorShape(status: number, body: unknown, context: string): void {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  expect(error, `${context}: error body ${JSON.stringify(body)?.slice(0, 300)}`).toBeTypeOf('object');
  expect(isNodeErrorCode(error?.code), `${context}: code ${String(error?.code)}`).toBe(true);
  expect(typeof error?.message === 'string' && error.message.length > 0, `${context}: message`).toBe(true);
  if (error?.details !== undefined) expect(error.details, `${context}: details`).toBeTypeOf('object');
  expect(status, `${context}: status of ${String(error?.code)}`).toBe(
    ERROR_CODES[error?.code as keyof typeof ERROR_CODES].http,
  );
}

/** Checks one reply to something a client sent: no 5xx (but OVERLOADED when `overloadOk`), documented errors. */
export function expectClientReply(reply: RawReply, context: string, overloadOk = false): unknown {
  let body: unknown;
  try {
    body = reply.text === '' ? undefined : JSON.parse(reply.text);
  } catch {
    body = reply.text;
  }
  if (reply.status >= 500) {
    const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
    expect(
      overloadOk && code === 'OVERLOADED',
      `${context}: ${reply.status} ${reply.text.slice(0, 300)}`,
    ).toBe(true);
  }
  if (reply.status >= 400) expectErrorShape(reply.status, body, context);
  return body;
}

/** Resident memory of a process, in bytes (Linux). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (kb === null) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb[1]) * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; `max` is the largest seen. */
export function watchRss(pid: number, everyMs = 100): { stop(): Promise<number>; readonly max: number } {
  let max = 0;
  const sample = async (): Promise<void> => {
    max = Math.max(max, await rssBytes(pid).catch(() => 0));
  };
  const timer = setInterval(() => void sample(), everyMs);
  void sample();
  return {
    get max() {
      return max;
    },
    async stop() {
      clearInterval(timer);
      await sample();
      return max;
    },
  };
}

export const MiB = 1024 * 1024;

/** A JSON request body with its content type. */
export function json(body: unknown): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

/**
 * Whether fastify's JSON parser (secure-json-parse) refuses `value` as prototype poisoning: a key
 * `__proto__`, or a key `constructor` holding an object with a key `prototype`, at any depth.
 */
export function poisoned(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(poisoned);
  if (Object.hasOwn(value, '__proto__')) return true;
  const ctor: unknown = Object.hasOwn(value, 'constructor')
    ? (value as { constructor: unknown }).constructor
    : undefined;
  if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
  return Object.values(value).some(poisoned);
}

/** Whatever the node said, it is something a client may be told. */
export function expectAnswer(reply: RawReply, what: string, timeoutAsked = false): unknown {
  if (timeoutAsked && reply.status === 504) return undefined;
  return expectClientReply(reply, what);
}
