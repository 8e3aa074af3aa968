/**
 * Partition transfer over a server-streaming gRPC call (paper 4.9): the receiver asks a source
 * for a page of a partition's keys after a cursor; the source streams them as chunks of key +
 * encoded state. Served on the same port as the Peer service, under the same service name; pulled
 * through the peer client (`PeerClient.transferPage`), over its channel.
 */
import {
  type Client,
  Metadata,
  type Server,
  type ServerWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { ERROR_CODES, PARTITION_COUNT_MAX, TesseraError } from '@tessera/core';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { parseWire } from './convert.js';
import * as pb from './generated/tessera/peer/v1/peer.js';
import type { TransferEntry, TransferPage } from './peer-api.js';
import { CODE_METADATA, DecodeFailure } from './service.js';
import { fromServiceError } from './wire-error.js';

/** What a node serves to receivers: one page of a partition as chunks. */
export interface TransferSource {
  page(request: TransferPage): AsyncIterable<TransferEntry[]>;
}

const requestSchema = z.object({
  partition: z
    .int()
    .min(0)
    .max(PARTITION_COUNT_MAX - 1),
  afterKey: z.string().max(4096).optional(),
  keysMax: z.int().min(1).max(100_000),
});

const entrySchema = z.object({ key: z.string().min(1), state: z.instanceof(Uint8Array) });

const definition = {
  transferPartition: {
    ...pb.PeerService.transferPartition,
    originalName: 'TransferPartition',
    // Bytes that do not decode become a BAD_REQUEST answer; a throwing deserializer would be INTERNAL.
    requestDeserialize: (bytes: Buffer): pb.TransferPartitionRequest | DecodeFailure => {
      try {
        return pb.TransferPartitionRequest.decode(bytes);
      } catch (error) {
        return new DecodeFailure(error);
      }
    },
  },
};

export function addTransferService(server: Server, source: TransferSource, log: Logger): void {
  server.addService(definition, {
    transferPartition: (
      call: ServerWritableStream<pb.TransferPartitionRequest | DecodeFailure, pb.TransferPartitionResponse>,
    ) => {
      void serve(call, source).catch((err: unknown) => {
        const code = TesseraError.is(err) ? err.code : 'INTERNAL';
        if (code === 'INTERNAL') log.error({ err }, 'partition transfer failed');
        const metadata = new Metadata();
        metadata.set(CODE_METADATA, code);
        const message = err instanceof Error ? err.message : String(err);
        // 'error' makes grpc-js end the call with this status; destroy() would end it with none,
        // leaving the receiver waiting for its deadline.
        call.emit(
          'error',
          Object.assign(new Error(message), { code: ERROR_CODES[code].grpc, details: message, metadata }),
        );
      });
    },
  });
}

async function serve(
  call: ServerWritableStream<pb.TransferPartitionRequest | DecodeFailure, pb.TransferPartitionResponse>,
  source: TransferSource,
): Promise<void> {
  if (call.request instanceof DecodeFailure) {
    throw new TesseraError('BAD_REQUEST', 'TransferPartition request is not a valid protobuf message.');
  }
  const request = parseWire(requestSchema, call.request, 'BAD_REQUEST', 'TransferPartition request');
  for await (const entries of source.page(request)) {
    if (call.cancelled) return;
    if (!call.write({ entries })) await new Promise((resolve) => call.once('drain', resolve));
  }
  call.end();
}

/**
 * Pulls one page over `channel` (the peer client's, transport/grpc-client.ts), handing each chunk
 * to `onChunk` before reading the next. A page left early (a failure, or `onChunk` threw) is
 * cancelled, so the source stops sending.
 */
export async function pullTransferPage(
  channel: Client,
  where: { readonly peer: string; readonly rpc: string },
  request: TransferPage,
  timeoutMs: number,
  onChunk: (entries: readonly TransferEntry[]) => Promise<void>,
): Promise<void> {
  const method = pb.PeerService.transferPartition;
  const stream = channel.makeServerStreamRequest(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    request,
    { deadline: Date.now() + timeoutMs },
  );
  // The status of a cancelled call arrives as an 'error' nobody else may be listening to by then.
  stream.on('error', () => {});
  let ended = false;
  try {
    for await (const chunk of stream as AsyncIterable<pb.TransferPartitionResponse>) {
      const what = `A transfer chunk from peer ${where.peer}`;
      await onChunk(chunk.entries.map((e) => parseWire(entrySchema, e, 'INTERNAL', what, { ...where })));
    }
    ended = true;
  } catch (error) {
    if (TesseraError.is(error)) throw error;
    throw fromServiceError(error as ServiceError, where, timeoutMs);
  } finally {
    if (!ended) stream.cancel();
  }
}
