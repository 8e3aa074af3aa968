/**
 * Answers for requests that never reach a route: bytes node's HTTP parser refuses, headers past
 * its size limit, and clients too slow to send a whole request (slowloris). They get the same
 * `{ "error": { code, message } }` body as every other error, then the connection is closed.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { TesseraError } from '@tessera/core';

/** The error for one of node's `clientError` events, or undefined when nothing can be answered. */
export function clientErrorOf(err: Error & { code?: string }): TesseraError | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new TesseraError(
        'REQUEST_TOO_SLOW',
        'The request was not received in time (httpHeadersTimeoutMs / httpRequestTimeoutMs); send it whole, without pauses.',
      );
    case 'HPE_HEADER_OVERFLOW':
      return new TesseraError(
        'HEADERS_TOO_LARGE',
        'The request headers are larger than 16 KiB; send fewer or shorter headers.',
      );
    default:
      return new TesseraError(
        'BAD_REQUEST',
        `The request is not well-formed HTTP/1.1 (${err.code ?? 'parse error'}); check its request line, headers and body framing.`,
      );
  }
}

/** Fastify's `clientErrorHandler`: writes the coded answer if the socket still takes it, then closes. */
export function handleClientError(err: Error & { code?: string }, socket: Socket): void {
  const error = clientErrorOf(err);
  if (error !== undefined && !socket.destroyed && socket.writable) {
    const body = JSON.stringify({ error: error.toJSON() });
    const status = error.httpStatus ?? 500;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
