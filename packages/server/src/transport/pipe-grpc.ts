/**
 * The replication pipe as a gRPC bidirectional stream (`Pipe`): how this release reaches a node of
 * the release before, which serves the pipe on gRPC only (pipe-socket-client.ts falls back to it).
 */
import type { Client, ServiceError } from '@grpc/grpc-js';
import { TesseraError } from '@tessera/core';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import { type OpenPipe, peerUnavailable } from './pipe-client.js';
import { CODE_METADATA, DETAILS_METADATA, pipeMethod } from './service.js';
import { codeForStatus, fromWireError } from './wire-error.js';

/** Pipes over `channel` (whose interceptors add the caller's identity to the stream's metadata). */
export function grpcPipe(channel: Client, address: string): OpenPipe {
  return (events) => {
    const stream = channel.makeBidiStreamRequest(
      pipeMethod.path,
      pipeMethod.requestSerialize,
      pipeMethod.responseDeserialize,
    );
    let broken = false;
    const fail = (error: ServiceError | undefined): void => {
      if (broken) return;
      broken = true;
      events.broken(streamError(address, error));
    };
    stream.on('data', (replies: pb.PipeResponse) => events.replies(replies));
    stream.on('error', (error: ServiceError) => fail(error));
    stream.on('end', () => fail(undefined));
    return { write: (message) => stream.write(message), end: () => stream.end() };
  };
}

/** Why a stream ended, as the error its calls in flight fail with. */
function streamError(peer: string, error: ServiceError | undefined): (rpc: string) => TesseraError {
  if (error === undefined) return (rpc) => peerUnavailable(peer, rpc, 'the peer ended the stream');
  const remote = error.metadata?.get(CODE_METADATA)[0];
  if (typeof remote === 'string') {
    return (rpc) => fromWireError(remote, error.details, detailsOf(error), { peer, rpc });
  }
  const code = codeForStatus(error.code);
  if (code === 'PEER_UNAVAILABLE') return (rpc) => peerUnavailable(peer, rpc, error.details || error.message);
  return (rpc) =>
    new TesseraError(code, `The pipe to peer ${peer} failed: ${error.details || error.message}`, {
      peer,
      rpc,
      grpcStatus: error.code,
    });
}

/** The details a refusal carries in its trailers (the peer guard's), as JSON. */
function detailsOf(error: ServiceError): string | undefined {
  const details = error.metadata?.get(DETAILS_METADATA)[0];
  return typeof details === 'string' ? details : undefined;
}
