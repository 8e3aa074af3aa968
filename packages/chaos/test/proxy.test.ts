/** The link proxy on loopback: passes bytes, cuts, stalls and slows one directed link. */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createRng } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkProxy } from '../src/proxy.js';

let echo: Server;
let echoPort = 0;
const proxies: LinkProxy[] = [];

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  const address = echo.address();
  echoPort = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  echo.close();
});

async function proxy(): Promise<LinkProxy> {
  const p = new LinkProxy('a', 'b', { host: '127.0.0.1', port: echoPort }, createRng(1));
  await p.listen();
  proxies.push(p);
  return p;
}

async function dial(p: LinkProxy): Promise<Socket> {
  const [host, port] = p.address.split(':');
  const socket = connect(Number(port), host);
  socket.on('error', () => {});
  await once(socket, 'connect');
  return socket;
}

/** The next `text.length` bytes the socket reads, or undefined after `timeoutMs`. */
function readText(socket: Socket, length: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let got = '';
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const onData = (chunk: Buffer): void => {
      got += chunk.toString();
      if (got.length >= length) finish(got);
    };
    const finish = (value: string | undefined): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(value);
    };
    socket.on('data', onData);
  });
}

/** Whether a new connection through the proxy gets an echo within `timeoutMs`. */
function echoes(p: LinkProxy, timeoutMs: number): Promise<boolean> {
  const [host, port] = p.address.split(':');
  return new Promise((resolve) => {
    const socket = connect(Number(port), host, () => socket.write('ping'));
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('data', () => done(true));
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}

describe('LinkProxy', () => {
  it('passes bytes both ways when the link is healthy', async () => {
    const socket = await dial(await proxy());
    socket.write('hello');
    expect(await readText(socket, 5, 2_000)).toBe('hello');
    socket.destroy();
  });

  it('a partition resets open connections and refuses new ones until healed', async () => {
    const p = await proxy();
    const socket = await dial(p);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    p.set({ kind: 'partition' });
    await closed;
    expect(await echoes(p, 500)).toBe(false);
    p.set({ kind: 'ok' });
    const healed = await dial(p);
    healed.write('back');
    expect(await readText(healed, 4, 2_000)).toBe('back');
    healed.destroy();
  });

  it('a stall holds bytes, and delivers them when healed', async () => {
    const p = await proxy();
    const socket = await dial(p);
    p.set({ kind: 'stall' });
    const early = readText(socket, 1, 400);
    socket.write('later');
    expect(await early).toBeUndefined();
    p.set({ kind: 'ok' });
    expect(await readText(socket, 5, 5_000)).toBe('later');
    socket.destroy();
  });

  it('a slow link delays each direction', async () => {
    const p = await proxy();
    const socket = await dial(p);
    p.set({ kind: 'slow', delayMs: 150, jitterMs: 0 });
    const startMs = Date.now();
    socket.write('slow');
    expect(await readText(socket, 4, 3_000)).toBe('slow');
    expect(Date.now() - startMs).toBeGreaterThanOrEqual(290);
    socket.destroy();
  });
});
