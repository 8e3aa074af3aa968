/**
 * The serving side of the replication pipe. Each call of a batch is validated on its own and run
 * at once; replies finished during one event-loop tick go back as one message. The writes of one
 * batch reach the store together and leave it as one LevelDB batch (storage/group-commit.ts).
 * Calls in flight per stream are bounded: past the bound a call is refused with OVERLOADED.
 * A pipe arrives over its own framing on the peer port (pipe-socket-server.ts), or from a node of
 * the release before as a gRPC stream (`Pipe`, served here too, for rolling upgrades).
 */
import { Metadata, type Server, type ServerDuplexStream } from '@grpc/grpc-js';
import { ERROR_CODES, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import { promised } from '../util/promised.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import type { PeerApi } from './peer-api.js';
import { messageRoomBytes, PIPE_BATCH_BYTES_MAX } from './pipe-client.js';
import { parseReadCall, parseReplicateCall } from './pipe-requests.js';
import { CODE_METADATA, DecodeFailure, MESSAGE_BYTES_MAX_DEFAULT, pipeMethod } from './service.js';
import { toWireError } from './wire-error.js';

/** Calls of one stream being served at once, at most. */
export const PIPE_SERVER_CALLS_MAX = 20_000;
/** Replies are sent at once when this many wait, else at the end of the tick. */
const REPLIES_PER_MESSAGE_MAX = 4_096;

const REPLICATED: pb.ReplicateResponse = {};
const NOT_FOUND: pb.ReadResponse = { found: false, state: new Uint8Array(0) };

type PipeCallStream = ServerDuplexStream<pb.PipeRequest | DecodeFailure, pb.PipeResponse>;

/** What serves the calls of a pipe. */
export type PipeHandler = Pick<PeerApi, 'read' | 'replicate'>;

/** One pipe as its server sees it, whatever carries it. */
export interface PipeCarrierEnd {
  write(message: pb.PipeResponse): void;
  end(): void;
  /** Ends the pipe with `error`: its calls in flight are unknown to the caller. */
  fail(error: TesseraError): void;
}

/** The pipes being served, so that a shutdown ends them. */
export class OpenPipes {
  private readonly open = new Set<PipeStream>();

  /**
   * `messageBytesMax` is the largest message a caller accepts (the same for every node of a
   * release): replies are split to stay below it, and a reply that alone would not fit fails.
   */
  constructor(private readonly messageBytesMax = MESSAGE_BYTES_MAX_DEFAULT) {}

  /** Serves a pipe on `carrier`; the carrier hands it what arrives (`receive`, `end`, `gone`). */
  serve(carrier: PipeCarrierEnd, handler: PipeHandler, log: Logger): PipeStream {
    const limits = { replyBytesMax: messageRoomBytes(this.messageBytesMax) };
    const stream = new PipeStream(carrier, handler, log, limits, () => this.open.delete(stream));
    this.open.add(stream);
    return stream;
  }

  /** Ends every open pipe, so a server shutdown does not wait for them. */
  close(): void {
    for (const stream of this.open) stream.end();
    this.open.clear();
  }
}

/** Serves the gRPC `Pipe` method (callers of the release before) into `pipes`. */
export function addGrpcPipeService(
  server: Server,
  pipes: OpenPipes,
  handler: PipeHandler,
  log: Logger,
): void {
  server.addService(
    { pipe: { ...pipeMethod, originalName: 'Pipe' } },
    {
      pipe: (call: PipeCallStream) => {
        const stream = pipes.serve(grpcCarrier(call), handler, log);
        call.on('data', (batch: pb.PipeRequest | DecodeFailure) => stream.receive(batch));
        call.on('end', () => stream.end());
        call.on('error', () => stream.gone());
        call.on('close', () => stream.gone());
      },
    },
  );
}

function grpcCarrier(call: PipeCallStream): PipeCarrierEnd {
  return {
    write: (message) => call.write(message),
    end: () => call.end(),
    fail: (error) => {
      const metadata = new Metadata();
      metadata.set(CODE_METADATA, error.code);
      // 'error' makes grpc-js end the call with this status; destroy() would end it with none.
      call.emit(
        'error',
        Object.assign(new Error(error.message), {
          code: ERROR_CODES[error.code].grpc,
          details: error.message,
          metadata,
        }),
      );
    },
  };
}

export class PipeStream {
  private inFlight = 0;
  private outbox: pb.PipeReply[] = [];
  private outboxBytes = 0;
  private flushQueued = false;
  private ended = false;

  constructor(
    private readonly carrier: PipeCarrierEnd,
    private readonly handler: PipeHandler,
    private readonly log: Logger,
    private readonly limits: { readonly replyBytesMax: number },
    private readonly onGone: () => void,
  ) {}

  /** The caller ended the pipe (or the server shuts down): replies ready go, then the pipe ends. */
  end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    this.carrier.end();
    this.onGone();
  }

  /** The carrier broke: nothing more can be sent. */
  gone(): void {
    this.ended = true;
    this.onGone();
  }

  receive(batch: pb.PipeRequest | DecodeFailure): void {
    if (batch instanceof DecodeFailure) {
      this.fail(new TesseraError('BAD_REQUEST', 'A pipe message is not a valid protobuf PipeRequest.'));
      return;
    }
    for (const call of batch.calls) this.serve(call);
  }

  private serve(call: pb.PipeCall): void {
    if (this.inFlight >= PIPE_SERVER_CALLS_MAX) {
      const error = new TesseraError(
        'OVERLOADED',
        `${PIPE_SERVER_CALLS_MAX} pipe calls are being served already; retry shortly.`,
      );
      this.reply({ id: call.id, error: toWireError(error, 'Pipe', this.log) });
      return;
    }
    this.inFlight++;
    promised(() => this.run(call)).then(
      (reply) => this.done(reply),
      (error: unknown) => this.done({ id: call.id, error: toWireError(error, rpcOf(call), this.log) }),
    );
  }

  /** One reaction per call, not an async frame: every replicated write runs this on every replica. */
  private run(call: pb.PipeCall): Promise<pb.PipeReply> {
    const { id } = call;
    if (call.read !== undefined && call.replicate === undefined) {
      const { key } = parseReadCall(call.read);
      return this.handler
        .read(key)
        .then((state) => ({ id, read: state === undefined ? NOT_FOUND : { found: true, state } }));
    }
    if (call.replicate !== undefined && call.read === undefined) {
      const request = parseReplicateCall(call.replicate);
      return this.handler
        .replicate(request.key, request.state, request.hint)
        .then(() => ({ id, replicate: REPLICATED }));
    }
    throw new TesseraError('BAD_REQUEST', 'A pipe call must hold exactly one of read and replicate.');
  }

  private done(reply: pb.PipeReply): void {
    this.inFlight--;
    this.reply(reply);
  }

  /**
   * Queues `reply` for the message of this tick. Replies are split into messages of about
   * PIPE_BATCH_BYTES_MAX (one message of many large states would pass the caller's limit and
   * break the pipe with every call on it); a reply too large for a message of its own fails alone.
   */
  private reply(answer: pb.PipeReply): void {
    if (this.ended) return;
    let reply = answer;
    let bytes = replyBytes(reply);
    if (bytes > this.limits.replyBytesMax) {
      reply = { id: reply.id, error: toWireError(this.tooLarge(bytes), 'Read', this.log) };
      bytes = replyBytes(reply);
    }
    if (this.outbox.length > 0 && this.outboxBytes + bytes > PIPE_BATCH_BYTES_MAX) this.flush();
    this.outbox.push(reply);
    this.outboxBytes += bytes;
    if (this.outbox.length >= REPLIES_PER_MESSAGE_MAX || this.outboxBytes >= PIPE_BATCH_BYTES_MAX)
      this.flush();
    else if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.outbox.length === 0 || this.ended) return;
    const replies = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    this.carrier.write({ replies });
  }

  private tooLarge(bytes: number): TesseraError {
    const max = this.limits.replyBytesMax;
    return new TesseraError(
      'VALUE_TOO_LARGE',
      `The key's state is ${bytes} bytes, more than one replication message carries (${max}); lower valueBytesMax or siblingsMax, or resolve the key's siblings.`,
      { bytes, bytesMax: max },
    );
  }

  /** Ends the pipe with `error`: what it carried that was not answered is unknown to the caller. */
  fail(error: TesseraError): void {
    if (this.ended) return;
    this.ended = true;
    this.carrier.fail(error);
    this.onGone();
  }
}

/** An upper bound on the encoded size of one reply (texts counted at 3 bytes per UTF-16 unit). */
function replyBytes(reply: pb.PipeReply): number {
  const { error } = reply;
  const errorChars =
    error === undefined ? 0 : error.code.length + error.message.length + (error.details?.length ?? 0);
  return 32 + (reply.read?.state.length ?? 0) + 3 * errorChars;
}

function rpcOf(call: pb.PipeCall): string {
  return call.replicate !== undefined ? 'Replicate' : 'Read';
}
