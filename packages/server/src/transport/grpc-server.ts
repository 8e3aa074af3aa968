/**
 * Serves a `PeerApi` over gRPC. Every request is decoded, checked with zod and converted to core
 * types before the handler sees it; every failure goes back as a gRPC status plus the Tessera
 * code in trailing metadata, so the client rebuilds the very `TesseraError` the handler threw.
 */
import {
  type handleUnaryCall,
  Metadata,
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { ERROR_CODES, TesseraError } from '@tessera/core';
import type { z } from 'zod';
import type { Logger } from '../logger.js';
import {
  clusterStateToProto,
  coordinateReplyToProto,
  coordinateRequestSchema,
  gossipRequestSchema,
  joinRequestSchema,
  listKeysRequestSchema,
  merkleHashesRequestSchema,
  merkleKeysRequestSchema,
  parseWire,
  readRequestSchema,
  replicateRequestSchema,
  strongPayloadSchema,
} from './convert.js';
import type { PeerTlsPems } from './credentials.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import type { KeyListingSource, PeerApi, StrongSource } from './peer-api.js';
import type { PeerGatekeeper } from './peer-guard.js';
import { listenForPeers, type PeerListener, type PeerListenerOptions } from './peer-listener.js';
import { addGrpcPipeService, OpenPipes } from './pipe-server.js';
import { servePipeSocket } from './pipe-socket-server.js';
import {
  CODE_METADATA,
  DETAILS_METADATA,
  DecodeFailure,
  MESSAGE_BYTES_MAX_DEFAULT,
  type PeerMethod,
  peerService,
} from './service.js';
import { addTransferService, type TransferSource } from './transfer-stream.js';
import { toWireError } from './wire-error.js';

/** How long `close()` lets calls in flight finish before cutting them off. */
const CLOSE_GRACE_MS = 5_000;

export interface PeerServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly logger: Logger;
  /** Largest request accepted; default 4 MiB. */
  readonly messageBytesMax?: number;
  /** Calls served at once; past it a call is refused with OVERLOADED. Default 10000. */
  readonly inflightMax?: number;
  /** Serves partition transfers (paper 4.9) when given. */
  readonly transfer?: TransferSource;
  /** Serves key listings (ListKeys) when given; without it they are UNIMPLEMENTED. */
  readonly listing?: KeyListingSource;
  /** Serves strong-key messages (Strong) when given; without it they are UNIMPLEMENTED. */
  readonly strong?: StrongSource;
  /** TLS and the peer guard (peer-security.ts); default plaintext, unguarded. */
  readonly security?: {
    readonly interceptors: ServerInterceptor[];
    readonly gatekeeper: PeerGatekeeper;
    readonly tls?: PeerTlsPems;
  };
  /** The peer port's connection limits (peer-listener.ts, pipe-socket-server.ts); defaults there. */
  readonly connectionLimits?: PeerConnectionLimits;
}

export interface PeerConnectionLimits {
  /** How long a plaintext connection may take to send its first bytes. */
  readonly sniffTimeoutMs?: number;
  /** How long a pipe caller may take to send its HELLO. */
  readonly helloTimeoutMs?: number;
  /** Replies a pipe caller has not read, at most, before it is cut off. */
  readonly pipeSendBufferBytesMax?: number;
}

export interface PeerServerHandle {
  /** The bound port (the chosen one when `port` was 0). */
  readonly port: number;
  /** Stops accepting calls, lets those in flight finish (a few seconds at most), then resolves. */
  close(): Promise<void>;
}

const NOT_FOUND: pb.ReadResponse = { found: false, state: new Uint8Array(0) };
const REPLICATED: pb.ReplicateResponse = {};

export async function startPeerServer(
  handler: PeerApi,
  options: PeerServerOptions,
): Promise<PeerServerHandle> {
  const log = options.logger;
  const server = new Server({
    'grpc.max_receive_message_length': options.messageBytesMax ?? MESSAGE_BYTES_MAX_DEFAULT,
    interceptors: options.security?.interceptors ?? [],
  });
  const calls: Calls = { log, inflight: 0, max: options.inflightMax ?? INFLIGHT_MAX_DEFAULT };
  server.addService(peerService, {
    read: unary(peerService.read, readRequestSchema, calls, async ({ key }) => {
      const state = await handler.read(key);
      return state === undefined ? NOT_FOUND : { found: true, state };
    }),
    replicate: unary(peerService.replicate, replicateRequestSchema, calls, async ({ key, state, hint }) => {
      await handler.replicate(key, state, hint);
      return REPLICATED;
    }),
    coordinate: unary(peerService.coordinate, coordinateRequestSchema, calls, async (request) =>
      coordinateReplyToProto(await handler.coordinate(request)),
    ),
    gossip: unary(peerService.gossip, gossipRequestSchema, calls, async ({ state }) => ({
      state: clusterStateToProto(await handler.gossip(state)),
    })),
    join: unary(peerService.join, joinRequestSchema, calls, async ({ member, settings }) => ({
      state: clusterStateToProto(await handler.join(member, settings)),
    })),
    merkleHashes: unary(peerService.merkleHashes, merkleHashesRequestSchema, calls, async (request) => ({
      hashes: await handler.merkleHashes(request.partition, request.level, request.indices),
    })),
    merkleKeys: unary(peerService.merkleKeys, merkleKeysRequestSchema, calls, (request) =>
      handler.merkleKeys(request),
    ),
    ...listingService(options.listing, calls),
    ...strongService(options.strong, calls),
  });

  const messageBytesMax = options.messageBytesMax ?? MESSAGE_BYTES_MAX_DEFAULT;
  const pipes = new OpenPipes(messageBytesMax);
  addGrpcPipeService(server, pipes, handler, log);
  if (options.transfer !== undefined) addTransferService(server, options.transfer, log);
  const gatekeeper = options.security?.gatekeeper ?? OPEN_DOOR;
  const limits = options.connectionLimits ?? {};
  // TLS, when on, is terminated by the listener, so grpc-js sees connections already decrypted.
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener = await listen({
    host: options.host,
    port: options.port,
    ...(options.security?.tls === undefined ? {} : { tls: options.security.tls }),
    grpc: (socket) => injector.injectConnection(socket),
    pipe: (socket, rest, certName) =>
      servePipeSocket(socket, rest, certName, {
        pipes,
        handler,
        gatekeeper,
        messageBytesMax,
        log,
        helloTimeoutMs: limits.helloTimeoutMs,
        sendBufferBytesMax: limits.pipeSendBufferBytesMax,
      }),
    onError: (error) => log.warn({ err: error }, 'the peer listener failed to take a connection'),
    sniffTimeoutMs: limits.sniffTimeoutMs,
  });
  const port = listener.port;
  log.info({ host: options.host, port }, 'peer server listening');
  let closing: Promise<void> | undefined;
  return {
    port,
    close: () => {
      closing ??= (async () => {
        const stopped = listener.close();
        pipes.close();
        await shutdown(server);
        // Whatever is still open (a pipe whose caller never closed its end, a connection that
        // never said what it is) goes now.
        listener.destroyConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

/** The guard of a server started without one (tests): every caller is let through. */
const OPEN_DOOR: PeerGatekeeper = { admit: () => undefined, refused: () => undefined };

async function listen(options: PeerListenerOptions): Promise<PeerListener> {
  try {
    return await listenForPeers(options);
  } catch (error) {
    const address = hostPort(options.host, options.port);
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Cannot listen for peers on ${address}: ${why}. Is the port taken? Pick another peer address.`,
      {
        cause: error,
      },
    );
  }
}

const INFLIGHT_MAX_DEFAULT = 10_000;

/** The ListKeys method, when this server lists keys (grpc-js answers UNIMPLEMENTED otherwise). */
function listingService(
  listing: KeyListingSource | undefined,
  calls: Calls,
): Record<string, handleUnaryCall<pb.ListKeysRequest | DecodeFailure, pb.ListKeysResponse>> {
  if (listing === undefined) return {};
  return {
    listKeys: unary(peerService.listKeys, listKeysRequestSchema, calls, async (request) => {
      const reply = await listing.listKeys(request);
      return { ...reply, keys: [...reply.keys] };
    }),
  };
}

/** The Strong method, when this server serves strong keys. */
function strongService(
  strong: StrongSource | undefined,
  calls: Calls,
): Record<string, handleUnaryCall<pb.StrongRequest | DecodeFailure, pb.StrongResponse>> {
  if (strong === undefined) return {};
  return {
    strong: unary(peerService.strong, strongPayloadSchema, calls, async ({ payload }) => ({
      payload: await strong.strong(payload),
    })),
  };
}

/** What every method of one server shares: its log and its count of calls being served. */
interface Calls {
  readonly log: Logger;
  inflight: number;
  readonly max: number;
}

/** One RPC: decode, validate and convert the request, run the handler, answer or map its error. */
function unary<Req, Res, S extends z.ZodType>(
  method: PeerMethod<Req, Res>,
  schema: S,
  calls: Calls,
  run: (request: z.output<S>) => Promise<Res>,
): handleUnaryCall<Req | DecodeFailure, Res> {
  const { log } = calls;
  const name = method.path.slice(method.path.lastIndexOf('/') + 1);
  const what = `Peer ${name} request`;
  const handle = async (request: Req | DecodeFailure): Promise<Res> => {
    if (calls.inflight >= calls.max) {
      throw new TesseraError(
        'OVERLOADED',
        `This node is serving ${calls.inflight} peer calls, its limit (peerInflightMax). Retry shortly.`,
      );
    }
    calls.inflight++;
    try {
      return await validated(request);
    } finally {
      calls.inflight--;
    }
  };
  const validated = async (request: Req | DecodeFailure): Promise<Res> => {
    if (request instanceof DecodeFailure) {
      const reason = request.cause instanceof Error ? `: ${request.cause.message.slice(0, 200)}` : '';
      throw new TesseraError('BAD_REQUEST', `${what} is not a valid protobuf message${reason}.`);
    }
    return run(parseWire(schema, request, 'BAD_REQUEST', what));
  };
  return (call, callback) => {
    handle(call.request)
      .then(
        (reply) => callback(null, reply),
        (error: unknown) => callback(errorResponse(error, name, log)),
      )
      .catch((error: unknown) => log.error({ err: error, rpc: name }, 'could not answer a peer call'));
  };
}

/** A thrown error as a gRPC status with the Tessera code (and details) in trailing metadata. */
function errorResponse(error: unknown, rpc: string, log: Logger): ServerErrorResponse {
  const wire = toWireError(error, rpc, log);
  const metadata = new Metadata();
  metadata.set(CODE_METADATA, wire.code);
  if (wire.details !== undefined) metadata.set(DETAILS_METADATA, wire.details);
  const { message } = wire;
  return { name: 'TesseraError', message, code: ERROR_CODES[wire.code].grpc, details: message, metadata };
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, CLOSE_GRACE_MS);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
