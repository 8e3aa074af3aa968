/**
 * The HTTP API's limits on slow and idle clients hold over TLS as over plain HTTP. Fastify applies
 * none of its server settings to a server made by a `serverFactory`, which is how TLS is served
 * (http/tls.ts): a TLS node kept node's defaults (60 s for headers, 300 s for a request, no idle
 * limit) whatever its config said, until the factory applied them itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCerts } from '../src/cli/certs.js';
import { createHttpApp } from '../src/http/app.js';
import { silentLogger } from '../src/logger.js';
import { appConfig, appDeps } from './http-app-kit.js';

const LIMITS = {
  httpHeadersTimeoutMs: 1_000,
  httpRequestTimeoutMs: 2_000,
  httpIdleTimeoutMs: 3_000,
  httpKeepAliveTimeoutMs: 4_000,
};

let dir: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-tls-limits-'));
  await ensureCerts({ dir, nodes: ['n0'], hosts: ['127.0.0.1'], days: 1, tokens: false });
});

afterAll(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  await rm(dir, { recursive: true, force: true });
});

function app(tls: boolean): FastifyInstance {
  const httpTls = { certFile: join(dir, 'n0.pem'), keyFile: join(dir, 'n0-key.pem') };
  const config = appConfig({ ...LIMITS, ...(tls ? { httpTls } : {}) });
  const made = createHttpApp(appDeps(config), silentLogger());
  apps.push(made);
  return made;
}

describe('HTTP limits over TLS', () => {
  it('sets the configured deadlines on the TLS server as on the plain one', () => {
    for (const tls of [false, true]) {
      const server = app(tls).server as Server;
      expect(
        {
          headersTimeout: server.headersTimeout,
          requestTimeout: server.requestTimeout,
          keepAliveTimeout: server.keepAliveTimeout,
          idleTimeout: server.timeout,
        },
        tls ? 'https' : 'http',
      ).toEqual({
        headersTimeout: 1_000,
        requestTimeout: 2_000,
        keepAliveTimeout: 4_000,
        idleTimeout: 3_000,
      });
    }
  });

  it('cuts off a TLS client that trickles its headers, with a coded 408, within the headers deadline', async () => {
    const tlsApp = app(true);
    await tlsApp.listen({ host: '127.0.0.1', port: 0 });
    const { port } = tlsApp.server.address() as AddressInfo;
    const startedMs = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        socket.write('GET /v1/kv/slow HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      });
      let text = '';
      const drip = setInterval(() => socket.writable && socket.write('a'), 200);
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
      });
      socket.on('close', () => {
        clearInterval(drip);
        resolve(text);
      });
      socket.on('error', (err) => {
        clearInterval(drip);
        if (text.length > 0) resolve(text);
        else reject(err);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('REQUEST_TOO_SLOW');
    // Node checks the deadline every second at most (connectionsCheckingInterval).
    expect(performance.now() - startedMs).toBeLessThan(LIMITS.httpHeadersTimeoutMs + 2_500);
  });
});
