/** HTTPS for the API: the server the fastify app runs on, when the config asks for TLS. */
import type { Server as HttpServer } from 'node:http';
import { createServer, type ServerOptions } from 'node:https';
import type { FastifyServerFactory } from 'fastify';
import type { Config } from '../config.js';
import { readPem } from '../security/pem.js';

export function httpsOptions(tls: NonNullable<Config['httpTls']>): ServerOptions {
  return {
    cert: readPem(tls.certFile, '--http-tls-cert'),
    key: readPem(tls.keyFile, '--http-tls-key'),
    minVersion: 'TLSv1.2',
    // With a CA, clients must present a certificate it signed (mutual TLS for the API).
    ...(tls.caFile === undefined
      ? {}
      : { ca: readPem(tls.caFile, '--http-tls-ca'), requestCert: true, rejectUnauthorized: true }),
  };
}

/** The limits on slow and idle clients that fastify sets on an HTTP server it makes (app.ts). */
export interface ServerLimits {
  /** Options of node's server constructor (headers and request deadlines, how often they are checked). */
  readonly http: ServerOptions;
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
}

/**
 * A fastify server factory for HTTPS, or undefined for plain HTTP. Fastify applies none of its
 * server settings to a factory's server, so the factory applies `limits` itself: without them a
 * TLS node kept node's defaults (60 s for headers, 300 s for a request, no idle limit).
 */
export function httpsServerFactory(
  config: Pick<Config, 'httpTls'>,
  limits: ServerLimits,
): FastifyServerFactory | undefined {
  if (config.httpTls === undefined) return undefined;
  const options = { ...limits.http, ...httpsOptions(config.httpTls) };
  return (handler) => {
    const server = createServer(options, handler);
    server.keepAliveTimeout = limits.keepAliveTimeout;
    server.requestTimeout = limits.requestTimeout;
    server.setTimeout(limits.connectionTimeout);
    // An https.Server serves fastify's handler exactly as an http.Server does; only the types differ.
    return server as unknown as HttpServer;
  };
}
