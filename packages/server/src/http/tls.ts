/** HTTPS for the API: the server the fastify app runs on, when the config asks for TLS. */
import { readFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer, type ServerOptions } from 'node:https';
import { TesseraError } from '@tessera/core';
import type { FastifyServerFactory } from 'fastify';
import type { Config } from '../config.js';

/** Reads a PEM file named in the config; the error names the file and the setting, never its content. */
export function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new TesseraError(
      'BAD_REQUEST',
      `Cannot read ${what} ${path} (${typeof code === 'string' ? code : 'unreadable'}). Make one with \`tessera certs\` (docs/security.md).`,
    );
  }
}

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
export function httpsServerFactory(config: Config): FastifyServerFactory | undefined {
  if (config.httpTls === undefined) return undefined;
  const options = httpsOptions(config.httpTls);
  // An https.Server serves fastify's handler exactly as an http.Server does; only the types differ.
  return (handler) => createServer(options, handler) as unknown as HttpServer;
}
