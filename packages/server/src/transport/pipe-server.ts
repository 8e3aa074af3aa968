/**
 * The serving side of the replication pipe. Each call of a batch is validated on its own and run
 * at once; replies finished during one event-loop tick go back as one message. The writes of one
 * batch reach the store together and leave it as one LevelDB batch (storage/group-commit.ts).
 * Calls in flight per stream are bounded: past the bound a call is refused with OVERLOADED.
 */
import { Metadata, type Server, type ServerDuplexStream } from '@grpc/grpc-js';
import { ERROR_CODES, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import type { PeerApi } from './peer-api.js';
import { parseReadCall, parseReplicateCall } from './pipe-requests.js';
import { CODE_METADATA, DecodeFailure, pipeMethod } from './service.js';
import { toWireError } from './wire-error.js';

/** Calls of one stream being served at once, at most. */
export const PIPE_SERVER_CALLS_MAX = 20_000;
/** Replies are sent at once when this many wait, else at the end of the tick. */
const REPLIES_PER_MESSAGE_MAX = 4_096;

const REPLICATED: pb.ReplicateResponse = {};
const NOT_FOUND: pb.ReadResponse = { found: false, state: new Uint8Array(0) };

type PipeCallStream = ServerDuplexStream<pb.PipeRequest | DecodeFailure, pb.PipeResponse>;

export interface PipeService {
  /** Ends every open pipe stream, so a server shutdown does not wait for them. */
  close(): void;
}

export function addPipeService(
  server: Server,
  handler: Pick<PeerApi, 'read' | 'replicate'>,
  log: Logger,
): PipeService {
  const open = new Set<PipeStream>();
  server.addService(
    { pipe: { ...pipeMethod, originalName: 'Pipe' } },
    {
      pipe: (call: PipeCallStream) => {
        const stream = new PipeStream(call, handler, log);
        open.add(stream);
        call.on('close', () => open.delete(stream));
      },
    },
  );
  return {
    close: () => {
      for (const stream of open) stream.end();
      open.clear();
    },
  };
}

class PipeStream {
  private inFlight = 0;
  private outbox: pb.PipeReply[] = [];
  private flushQueued = false;
  private ended = false;

  constructor(
    private readonly call: PipeCallStream,
    private readonly handler: Pick<PeerApi, 'read' | 'replicate'>,
    private readonly log: Logger,
  ) {
    call.on('data', (batch: pb.PipeRequest | DecodeFailure) => this.receive(batch));
    call.on('end', () => this.end());
    call.on('error', () => {
      this.ended = true;
    });
  }

  end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    this.call.end();
  }

  private receive(batch: pb.PipeRequest | DecodeFailure): void {
    if (batch instanceof DecodeFailure) {
      this.refuseStream('A pipe message is not a valid protobuf PipeRequest.');
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
    this.run(call).then(
      (reply) => this.done(reply),
      (error: unknown) => this.done({ id: call.id, error: toWireError(error, rpcOf(call), this.log) }),
    );
  }

  private async run(call: pb.PipeCall): Promise<pb.PipeReply> {
    if (call.read !== undefined && call.replicate === undefined) {
      const { key } = parseReadCall(call.read);
      const state = await this.handler.read(key);
      return { id: call.id, read: state === undefined ? NOT_FOUND : { found: true, state } };
    }
    if (call.replicate !== undefined && call.read === undefined) {
      const request = parseReplicateCall(call.replicate);
      await this.handler.replicate(request.key, request.state, request.hint);
      return { id: call.id, replicate: REPLICATED };
    }
    throw new TesseraError('BAD_REQUEST', 'A pipe call must hold exactly one of read and replicate.');
  }

  private done(reply: pb.PipeReply): void {
    this.inFlight--;
    this.reply(reply);
  }

  private reply(reply: pb.PipeReply): void {
    if (this.ended) return;
    this.outbox.push(reply);
    if (this.outbox.length >= REPLIES_PER_MESSAGE_MAX) this.flush();
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
    this.call.write({ replies });
  }

  /** A message that does not decode leaves its calls unknown: the stream ends with BAD_REQUEST. */
  private refuseStream(message: string): void {
    if (this.ended) return;
    this.ended = true;
    const metadata = new Metadata();
    metadata.set(CODE_METADATA, 'BAD_REQUEST');
    // 'error' makes grpc-js end the call with this status; destroy() would end it with none.
    this.call.emit(
      'error',
      Object.assign(new Error(message), { code: ERROR_CODES.BAD_REQUEST.grpc, details: message, metadata }),
    );
  }
}

function rpcOf(call: pb.PipeCall): string {
  return call.replicate !== undefined ? 'Replicate' : 'Read';
}
