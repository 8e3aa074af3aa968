/**
 * A `TesseraError` on the peer wire and back: the code, a bounded message and JSON details. Unary
 * calls carry it in a gRPC status plus trailing metadata, pipe calls in a `PipeError`; both sides
 * use these functions, so the caller rebuilds the very error the peer's handler threw.
 */
import { type ServiceError, status } from '@grpc/grpc-js';
import {
  codeForGrpcStatus,
  type ErrorCode,
  type ErrorDetails,
  isNodeErrorCode,
  TesseraError,
} from '@tessera/core';
import type { Logger } from '../logger.js';
import { NOT_SENT } from './peer-api.js';
import { CODE_METADATA, DETAILS_METADATA } from './service.js';

/** Bounds keep the trailers far below HTTP/2 header limits. */
const MESSAGE_CHARS_MAX = 2_048;
const DETAILS_CHARS_MAX = 8_192;

export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  /** JSON of the error's details, in ASCII; absent if none or too large. */
  readonly details?: string;
}

/** A thrown error as sent to the caller; unexpected ones are logged here and sent as INTERNAL. */
export function toWireError(error: unknown, rpc: string, log: Logger): WireError {
  if (TesseraError.is(error) && isNodeErrorCode(error.code)) {
    const code = error.code;
    if (code === 'INTERNAL' || code === 'STORAGE_FAILURE') log.error({ err: error, rpc }, 'peer call failed');
    else log.debug({ code, rpc, message: error.message }, 'peer call refused');
    const message = wellFormed(error.message.slice(0, MESSAGE_CHARS_MAX));
    const details = detailsJson(error.details);
    return details === undefined ? { code, message } : { code, message, details };
  }
  log.error({ err: error, rpc }, 'peer call failed');
  return { code: 'INTERNAL', message: `The peer failed while serving ${rpc}; its log has the details.` };
}

/** The error a peer sent, with the peer and call named in its details. */
export function fromWireError(
  code: string,
  message: string,
  details: string | undefined,
  where: { readonly peer: string; readonly rpc: string },
  cause?: unknown,
): TesseraError {
  if (!isNodeErrorCode(code)) {
    return new TesseraError('INTERNAL', `Peer ${where.peer} failed ${where.rpc} with unknown code ${code}.`, {
      ...where,
    });
  }
  return new TesseraError(code, message, { ...parseDetails(details), ...where }, { cause });
}

/**
 * A failed gRPC call as the error the peer's handler threw, when the peer says so in trailing
 * metadata, else one derived from the gRPC status (the transport chose it).
 */
export function fromServiceError(
  error: ServiceError,
  where: { readonly peer: string; readonly rpc: string },
  timeoutMs: number,
): TesseraError {
  const { peer, rpc } = where;
  const remoteCode = error.metadata?.get(CODE_METADATA)[0];
  if (typeof remoteCode === 'string') {
    const details = error.metadata.get(DETAILS_METADATA)[0];
    const json = typeof details === 'string' ? details : undefined;
    return fromWireError(remoteCode, error.details, json, where, error);
  }
  const code = codeForStatus(error.code);
  const message =
    code === 'TIMEOUT'
      ? `Peer ${peer} did not answer ${rpc} within ${timeoutMs} ms.`
      : code === 'PEER_UNAVAILABLE'
        ? `Peer ${peer} is unavailable: ${error.details}`
        : `Peer ${peer} failed ${rpc}: ${error.details}`;
  const sent = code === 'PEER_UNAVAILABLE' && neverSent(error.details) ? NOT_SENT : {};
  return new TesseraError(code, message, { peer, rpc, grpcStatus: error.code, ...sent }, { cause: error });
}

/**
 * grpc-js's UNAVAILABLE statuses whose request surely never reached the peer: no connection to
 * send it on, or a stream the peer refused (HTTP/2: not processed). Any other UNAVAILABLE ("Connection
 * dropped" when the peer died mid-call) may come after the peer ran the call.
 */
const NEVER_SENT = [
  'No connection established',
  'Stream refused by server',
  'Channel closed before call started',
];

function neverSent(details: string): boolean {
  return NEVER_SENT.some((prefix) => details.startsWith(prefix));
}

function parseDetails(json: string | undefined): ErrorDetails | undefined {
  if (json === undefined) return undefined;
  try {
    const details: unknown = JSON.parse(json);
    return typeof details === 'object' && details !== null && !Array.isArray(details)
      ? (details as ErrorDetails)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Details as JSON in ASCII (metadata values allow no more), or undefined if none or too large. */
function detailsJson(details: unknown): string | undefined {
  if (details === undefined) return undefined;
  let json: string;
  try {
    json = JSON.stringify(details);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  json = json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return json.length <= DETAILS_CHARS_MAX ? json : undefined;
}

/** grpc-js percent-encodes the status message with `encodeURI`, which throws on lone surrogates. */
function wellFormed(text: string): string {
  return text.replace(/\p{Surrogate}/gu, '\uFFFD');
}

/** The Tessera code for a gRPC status that the peer's handler did not choose (the transport did). */
export function codeForStatus(grpcStatus: number): ErrorCode {
  switch (grpcStatus) {
    case status.DEADLINE_EXCEEDED:
      return 'TIMEOUT';
    case status.UNAVAILABLE:
      return 'PEER_UNAVAILABLE';
    // grpc-js answers a message above the receive limit with this status, on either side.
    case status.RESOURCE_EXHAUSTED:
      return 'VALUE_TOO_LARGE';
    default:
      return codeForGrpcStatus(grpcStatus);
  }
}
