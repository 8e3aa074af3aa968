/**
 * The Peer service as grpc-js sees it. Paths come from the generated definition; the
 * (de)serializers are ours, for two reasons:
 * - the generated ones wrap every encoded message in `Buffer.from(bytes)`, a copy of the whole
 *   message; ours hand grpc-js a Buffer view of the same bytes;
 * - a request that fails to decode (hostile or corrupt bytes, a uint64 above 2^53) becomes a
 *   `DecodeFailure` value that the server answers with BAD_REQUEST, where a thrown error would
 *   be answered by grpc-js as INTERNAL.
 */
import * as pb from './generated/tessera/peer/v1/peer.js';

/** Default limit on one message, each way. */
export const MESSAGE_BYTES_MAX_DEFAULT = 4 * 1024 * 1024;
/** Trailing metadata carrying the `ErrorCode` of a failed call. */
export const CODE_METADATA = 'tessera-code';
/** Trailing metadata carrying the JSON `details` of a failed call, if the error has details. */
export const DETAILS_METADATA = 'tessera-details';

/** The part of a generated message object that the wire needs. */
interface MessageCodec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

/** A request whose bytes did not decode. */
export class DecodeFailure {
  constructor(readonly cause: unknown) {}
}

/** A unary method (a grpc-js `MethodDefinition`) whose server side may see a `DecodeFailure`. */
export interface PeerMethod<Req, Res> {
  readonly path: string;
  readonly requestStream: false;
  readonly responseStream: false;
  requestSerialize(message: Req): Buffer;
  requestDeserialize(bytes: Buffer): Req | DecodeFailure;
  responseSerialize(message: Res): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

function serializer<T>(codec: MessageCodec<T>): (message: T) => Buffer {
  return (message) => {
    const bytes = codec.encode(message).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/**
 * The same memory as a plain Uint8Array, so decoded `bytes` fields are plain Uint8Array views too:
 * a Buffer's `slice` shares memory where a Uint8Array's copies, a trap for whoever keeps one.
 */
function plain(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function method<Req, Res>(
  generated: {
    readonly path: string;
    requestSerialize(value: Req): Buffer;
    responseSerialize(value: Res): Buffer;
  },
  request: MessageCodec<Req>,
  response: MessageCodec<Res>,
): PeerMethod<Req, Res> {
  return {
    path: generated.path,
    requestStream: false,
    responseStream: false,
    requestSerialize: serializer(request),
    requestDeserialize: (bytes) => {
      try {
        return request.decode(plain(bytes));
      } catch (error) {
        return new DecodeFailure(error);
      }
    },
    responseSerialize: serializer(response),
    // A reply that fails to decode is turned into status INTERNAL by grpc-js on the client.
    responseDeserialize: (bytes) => response.decode(plain(bytes)),
  };
}

export const peerService = {
  read: method(pb.PeerService.read, pb.ReadRequest, pb.ReadResponse),
  replicate: method(pb.PeerService.replicate, pb.ReplicateRequest, pb.ReplicateResponse),
  coordinate: method(pb.PeerService.coordinate, pb.CoordinateRequest, pb.CoordinateResponse),
  gossip: method(pb.PeerService.gossip, pb.GossipRequest, pb.GossipResponse),
  join: method(pb.PeerService.join, pb.JoinRequest, pb.JoinResponse),
  merkleHashes: method(pb.PeerService.merkleHashes, pb.MerkleHashesRequest, pb.MerkleHashesResponse),
  merkleKeys: method(pb.PeerService.merkleKeys, pb.MerkleKeysRequest, pb.MerkleKeysResponse),
  listKeys: method(pb.PeerService.listKeys, pb.ListKeysRequest, pb.ListKeysResponse),
  strong: method(pb.PeerService.strong, pb.StrongRequest, pb.StrongResponse),
} as const;

/** The replication pipe (bidirectional stream); see pipe-client.ts and pipe-server.ts. */
export const pipeMethod = {
  path: pb.PeerService.pipe.path,
  requestStream: true,
  responseStream: true,
  requestSerialize: serializer(pb.PipeRequest),
  requestDeserialize: (bytes: Buffer): pb.PipeRequest | DecodeFailure => {
    try {
      return pb.PipeRequest.decode(plain(bytes));
    } catch (error) {
      return new DecodeFailure(error);
    }
  },
  responseSerialize: serializer(pb.PipeResponse),
  responseDeserialize: (bytes: Buffer): pb.PipeResponse => pb.PipeResponse.decode(plain(bytes)),
} as const;
