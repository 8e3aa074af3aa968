/**
 * A `PeerClient` over gRPC: one channel per peer, a deadline on every call, and every failure
 * turned into a `TesseraError` — the one the peer's handler threw when the peer says so in
 * trailing metadata, else one derived from the gRPC status.
 */
import { Client, credentials, type ServiceError } from '@grpc/grpc-js';
import {
  type ClusterState,
  MERKLE_HASH_BYTES,
  type Member,
  type NodeSettings,
  TesseraError,
} from '@tessera/core';
import type { z } from 'zod';
import type { Logger } from '../logger.js';
import {
  clusterStateResponseSchema,
  clusterStateToProto,
  coordinateRequestToProto,
  coordinateResponseSchema,
  joinRequestToProto,
  listKeysResponseSchema,
  merkleKeysResponseSchema,
  parseWire,
  strongPayloadSchema,
} from './convert.js';
import type { PeerClientSecurity } from './credentials.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import {
  type CoordinateReply,
  type CoordinateRequest,
  type ListKeysReply,
  type ListKeysRequest,
  type MerkleKeysReply,
  type MerkleKeysRequest,
  NOT_SENT,
  type PeerClient,
  type TransferEntry,
  type TransferPage,
} from './peer-api.js';
import { PipeClient, type PipeOp } from './pipe-client.js';
import { grpcPipe } from './pipe-grpc.js';
import { socketPipe } from './pipe-socket-client.js';
import { MESSAGE_BYTES_MAX_DEFAULT, type PeerMethod, peerService } from './service.js';
import { pullTransferPage } from './transfer-stream.js';
import { fromServiceError } from './wire-error.js';

export interface PeerClientOptions {
  /** Failed calls are logged at debug level. */
  readonly logger?: Logger;
  /** Largest reply accepted; default 4 MiB. */
  readonly messageBytesMax?: number;
  /** TLS and the caller's identity on every call (credentials.ts); default plaintext, anonymous. */
  readonly security?: PeerClientSecurity;
  /** How long a small batch of replica calls waits for more while the pipe is busy (pipe-client.ts). */
  readonly pipeHoldMs?: number;
}

export function createPeerClient(address: string, options: PeerClientOptions = {}): PeerClient {
  return new GrpcPeerClient(address, options);
}

class GrpcPeerClient implements PeerClient {
  private readonly channel: Client;
  private readonly pipe: PipeClient;
  private closed = false;

  constructor(
    readonly address: string,
    private readonly options: PeerClientOptions,
  ) {
    this.channel = new Client(address, options.security?.credentials ?? credentials.createInsecure(), {
      ...options.security?.options,
      'grpc.max_receive_message_length': options.messageBytesMax ?? MESSAGE_BYTES_MAX_DEFAULT,
      // Peers are on a LAN or loopback: probe idle connections often, and reconnect to a peer
      // that came back within seconds (grpc-js would otherwise back off up to two minutes).
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
    });
    const messageBytesMax = options.messageBytesMax ?? MESSAGE_BYTES_MAX_DEFAULT;
    const security = options.security;
    const open = socketPipe(address, {
      ...(security?.tls === undefined ? {} : { tls: security.tls }),
      hello: security?.hello ?? (() => ({})),
      messageBytesMax,
      legacy: grpcPipe(this.channel, address),
    });
    this.pipe = new PipeClient(open, address, { messageBytesMax, holdMs: options.pipeHoldMs ?? 0 });
  }

  /** Replica reads and writes travel over the pipe, batched with the others of the same tick. */
  read(key: string, timeoutMs: number): Promise<Uint8Array | undefined> {
    return this.pipeCall({ read: { key } }, 'Read', timeoutMs).then((reply) => {
      if (reply.read === undefined) throw this.badReply('Read', 'no read result');
      return reply.read.found ? reply.read.state : undefined;
    });
  }

  replicate(key: string, state: Uint8Array, timeoutMs: number, hint?: string): Promise<void> {
    const replicate = hint === undefined ? { key, state } : { key, state, hint };
    // One reaction for the reply and the failure's log line (pipeCall's own would be a second).
    return this.pipe.call({ replicate }, 'Replicate', timeoutMs).then(
      (reply) => {
        if (reply.replicate === undefined) throw this.badReply('Replicate', 'no replicate result');
      },
      (error: unknown) => this.failedCall('Replicate', error),
    );
  }

  async coordinate(request: CoordinateRequest, timeoutMs: number): Promise<CoordinateReply> {
    const reply = await this.call(peerService.coordinate, coordinateRequestToProto(request), timeoutMs);
    return this.parseReply(coordinateResponseSchema, reply, 'Coordinate');
  }

  async gossip(state: ClusterState, timeoutMs: number): Promise<ClusterState> {
    const reply = await this.call(peerService.gossip, { state: clusterStateToProto(state) }, timeoutMs);
    return this.parseReply(clusterStateResponseSchema, reply, 'Gossip').state;
  }

  async join(member: Member, timeoutMs: number, settings?: NodeSettings): Promise<ClusterState> {
    const request = joinRequestToProto(member, settings);
    const reply = await this.call(peerService.join, request, timeoutMs);
    return this.parseReply(clusterStateResponseSchema, reply, 'Join').state;
  }

  async merkleHashes(
    partition: number,
    level: number,
    indices: readonly number[],
    timeoutMs: number,
  ): Promise<Uint8Array> {
    const reply = await this.call(peerService.merkleHashes, { partition, level, indices }, timeoutMs);
    if (reply.hashes.length !== indices.length * MERKLE_HASH_BYTES) {
      throw this.badReply(
        'MerkleHashes',
        `${reply.hashes.length} bytes of hashes for ${indices.length} nodes`,
      );
    }
    return reply.hashes;
  }

  async merkleKeys(request: MerkleKeysRequest, timeoutMs: number): Promise<MerkleKeysReply> {
    const reply = await this.call(peerService.merkleKeys, request, timeoutMs);
    const parsed = this.parseReply(merkleKeysResponseSchema, reply, 'MerkleKeys');
    if (parsed.bucketsDone > request.buckets.length || parsed.entries.length > request.keysMax) {
      throw this.badReply('MerkleKeys', `more buckets or keys than asked for`);
    }
    return parsed;
  }

  async strong(payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const reply = await this.call(peerService.strong, { payload }, timeoutMs);
    return this.parseReply(strongPayloadSchema, reply, 'Strong').payload;
  }

  async listKeys(request: ListKeysRequest, timeoutMs: number): Promise<ListKeysReply> {
    const reply = await this.call(peerService.listKeys, request, timeoutMs);
    const parsed = this.parseReply(listKeysResponseSchema, reply, 'ListKeys');
    if (parsed.keys.length > request.keysMax || parsed.scanned > request.scanMax) {
      throw this.badReply('ListKeys', 'more keys or entries than asked for');
    }
    if (!parsed.done && (parsed.scanned === 0 || parsed.lastKey === undefined)) {
      throw this.badReply('ListKeys', 'no progress and not done');
    }
    return parsed;
  }

  /** Over the same channel as every other call: no connection of its own per page. */
  async transferPage(
    request: TransferPage,
    timeoutMs: number,
    onChunk: (entries: readonly TransferEntry[]) => Promise<void>,
  ): Promise<void> {
    const rpc = 'TransferPartition';
    const refusal = this.refusal(rpc, timeoutMs);
    if (refusal !== undefined) throw refusal;
    try {
      await pullTransferPage(this.channel, { peer: this.address, rpc }, request, timeoutMs, onChunk);
    } catch (error) {
      if (TesseraError.is(error))
        this.options.logger?.debug({ peer: this.address, rpc, code: error.code }, 'peer call failed');
      throw error;
    }
  }

  close(): void {
    this.closed = true;
    this.pipe.close();
    this.channel.close();
  }

  /** One pipe call; a failure is logged at debug level. (No async frame: it runs per replica call.) */
  private pipeCall(op: PipeOp, rpc: string, timeoutMs: number): Promise<pb.PipeReply> {
    return this.pipe.call(op, rpc, timeoutMs).catch((error: unknown) => this.failedCall(rpc, error));
  }

  /** A pipe call failed: logged at debug, then passed on. */
  private failedCall(rpc: string, error: unknown): never {
    if (TesseraError.is(error)) {
      this.options.logger?.debug({ peer: this.address, rpc, code: error.code }, 'peer call failed');
    }
    throw error;
  }

  private call<Req, Res>(method: PeerMethod<Req, Res>, request: Req, timeoutMs: number): Promise<Res> {
    const rpc = method.path.slice(method.path.lastIndexOf('/') + 1);
    const refusal = this.refusal(rpc, timeoutMs);
    if (refusal !== undefined) return Promise.reject(refusal);
    return new Promise((resolve, reject) => {
      const done = (error: ServiceError | null, reply?: Res): void => {
        if (error === null && reply !== undefined) {
          resolve(reply);
          return;
        }
        const failure = this.toTesseraError(error, rpc, timeoutMs);
        this.options.logger?.debug({ peer: this.address, rpc, code: failure.code }, 'peer call failed');
        reject(failure);
      };
      try {
        const deadline = Date.now() + timeoutMs;
        this.channel.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          { deadline },
          done,
        );
      } catch (error) {
        reject(
          new TesseraError(
            'INTERNAL',
            `Could not call ${rpc} on peer ${this.address}.`,
            { peer: this.address, rpc },
            { cause: error },
          ),
        );
      }
    });
  }

  /** Why a call cannot start: a deadline that is not one, or a closed client. */
  private refusal(rpc: string, timeoutMs: number): TesseraError | undefined {
    const peer = this.address;
    if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) {
      return new TesseraError(
        'INTERNAL',
        `timeoutMs must be a positive number of milliseconds, not ${timeoutMs}.`,
        { peer, rpc },
      );
    }
    if (this.closed)
      return new TesseraError('PEER_UNAVAILABLE', `The client for peer ${peer} is closed.`, {
        peer,
        rpc,
        ...NOT_SENT,
      });
    return undefined;
  }

  /** A reply that is well-formed protobuf but not a valid value is the peer's bug: INTERNAL. */
  private parseReply<S extends z.ZodType>(schema: S, reply: unknown, rpc: string): z.output<S> {
    return parseWire(schema, reply, 'INTERNAL', `The ${rpc} reply of peer ${this.address}`, {
      peer: this.address,
      rpc,
    });
  }

  private badReply(rpc: string, what: string): TesseraError {
    return new TesseraError('INTERNAL', `The ${rpc} reply of peer ${this.address} is malformed: ${what}.`, {
      peer: this.address,
      rpc,
    });
  }

  private toTesseraError(error: ServiceError | null, rpc: string, timeoutMs: number): TesseraError {
    const peer = this.address;
    if (error === null)
      return new TesseraError('INTERNAL', `Peer ${peer} answered ${rpc} with nothing.`, { peer, rpc });
    return fromServiceError(error, { peer, rpc }, timeoutMs);
  }
}
