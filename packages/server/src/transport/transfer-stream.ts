/**
 * Partition transfer over a server-streaming gRPC call (paper 4.9): the receiver asks a source
 * for a page of a partition's keys after a cursor; the source streams them as chunks of key +
 * encoded state. Served on the same port as the Peer service, under the same service name.
 */
import {
  Client,
  credentials,
  Metadata,
  type Server,
  type ServerWritableStream,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { ERROR_CODES, PARTITION_COUNT_MAX, TesseraError } from '@tessera/core';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { parseWire } from './convert.js';
import type { PeerClientSecurity } from './credentials.js';
import * as pb from './generated/tessera/peer/v1/peer.js';
import { CODE_METADATA, DecodeFailure, MESSAGE_BYTES_MAX_DEFAULT } from './service.js';

export interface TransferEntry {
  readonly key: string;
  /** Core `encodeState` bytes. */
  readonly state: Uint8Array;
}

export interface TransferPage {
  readonly partition: number;
  /** Resume after this key (exclusive). */
  readonly afterKey?: string;
  readonly keysMax: number;
}

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

/** Pulls one page from the peer at `address`; yields chunks as they arrive. */
export async function* fetchTransferPage(
  address: string,
  request: TransferPage,
  timeoutMs: number,
  security?: PeerClientSecurity,
): AsyncIterable<TransferEntry[]> {
  const client = new Client(address, security?.credentials ?? credentials.createInsecure(), {
    ...security?.options,
    'grpc.max_receive_message_length': MESSAGE_BYTES_MAX_DEFAULT,
  });
  const path = pb.PeerService.transferPartition.path;
  try {
    const stream = client.makeServerStreamRequest(
      path,
      pb.PeerService.transferPartition.requestSerialize,
      pb.PeerService.transferPartition.responseDeserialize,
      request,
      { deadline: Date.now() + timeoutMs },
    );
    try {
      for await (const chunk of stream as AsyncIterable<pb.TransferPartitionResponse>) {
        yield chunk.entries.map((e) =>
          parseWire(entrySchema, e, 'INTERNAL', `Transfer chunk from ${address}`),
        );
      }
    } catch (err) {
      throw toTesseraError(err, address);
    }
  } finally {
    client.close();
  }
}

function toTesseraError(err: unknown, address: string): TesseraError {
  if (TesseraError.is(err)) return err;
  const e = err as Partial<ServiceError>;
  const code =
    e.code === status.UNAVAILABLE
      ? 'PEER_UNAVAILABLE'
      : e.code === status.DEADLINE_EXCEEDED
        ? 'TIMEOUT'
        : 'INTERNAL';
  return new TesseraError(code, `Partition transfer from ${address} failed: ${e.details ?? String(err)}`, {
    peer: address,
  });
}
