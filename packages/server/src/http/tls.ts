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

/** A fastify server factory for HTTPS, or undefined for plain HTTP. */
export function httpsServerFactory(config: Pick<Config, 'httpTls'>): FastifyServerFactory | undefined {
  if (config.httpTls === undefined) return undefined;
  const options = httpsOptions(config.httpTls);
  // An https.Server serves fastify's handler exactly as an http.Server does; only the types differ.
  return (handler) => createServer(options, handler) as unknown as HttpServer;
}
