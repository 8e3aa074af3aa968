/**
 * A replication pipe on its own framing (pipe-frames.ts), once the peer listener knows the
 * connection is one (peer-listener.ts): the caller's HELLO is checked by the peer guard, exactly as
 * a gRPC call's metadata is (peer-guard.ts), then REQUEST frames are decoded by the pipe's one
 * decoder (service.ts) and served by a PipeStream (pipe-server.ts). Bytes that are not frames of
 * this protocol end the connection with BAD_REQUEST.
 */
import type { Socket } from 'node:net';
import { TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import {
  AUTH_METADATA,
  CLUSTER_METADATA,
  IDENTITY_METADATA,
  NODE_METADATA,
  PROTOCOL_METADATA,
} from './credentials.js';
import type { PeerGatekeeper } from './peer-guard.js';
import { encodeFrame, type Frame, FrameError, FrameKind, FrameReader } from './pipe-frames.js';
import { encodeJson, HELLO_BYTES_MAX, parseHello } from './pipe-hello.js';
import type { OpenPipes, PipeCarrierEnd, PipeHandler, PipeStream } from './pipe-server.js';
import { pipeMethod } from './service.js';
import { toWireError } from './wire-error.js';

/** How long a caller has to say who it is, by default. */
export const HELLO_TIMEOUT_MS = 10_000;
/**
 * Replies waiting in one connection's send buffer, at most, by default: a caller that stops
 * reading is cut off.
 */
export const PIPE_SEND_BUFFER_BYTES_MAX = 64 * 1024 * 1024;

export interface PipeSocketServing {
  readonly pipes: OpenPipes;
  readonly handler: PipeHandler;
  /** The peer guard (peer-guard.ts), on the facts the HELLO carries. */
  readonly gatekeeper: PeerGatekeeper;
  /** Largest pipe message accepted, as for gRPC (`grpc.max_receive_message_length`). */
  readonly messageBytesMax: number;
  readonly log: Logger;
  /** Default HELLO_TIMEOUT_MS. */
  readonly helloTimeoutMs?: number | undefined;
  /** Default PIPE_SEND_BUFFER_BYTES_MAX. */
  readonly sendBufferBytesMax?: number | undefined;
}

/**
 * Serves a pipe on `socket`, whose first bytes (after the magic, on plaintext) are `rest`;
 * `certName` is the CN of the certificate a TLS caller presented.
 */
export function servePipeSocket(
  socket: Socket,
  rest: Buffer,
  certName: string | undefined,
  serving: PipeSocketServing,
): void {
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 10_000);
  const reader = new FrameReader(serving.messageBytesMax);
  let stream: PipeStream | undefined;
  const helloTimer = setTimeout(() => socket.destroy(), serving.helloTimeoutMs ?? HELLO_TIMEOUT_MS);
  helloTimer.unref();
  const onFrame = (frame: Frame): void => {
    if (stream !== undefined) {
      serveFrame(stream, frame, socket);
      return;
    }
    clearTimeout(helloTimer);
    stream = hello(frame, socket, certName, serving);
  };
  const onData = (chunk: Buffer): void => {
    // After a refusal the socket only drains what is still arriving.
    if (!socket.writable) return;
    let frames: Frame[];
    try {
      frames = reader.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      const refusal = new TesseraError(error.code, `The replication pipe was refused: ${error.message}.`);
      if (stream === undefined) refuse(socket, refusal, serving.log);
      else stream.fail(refusal);
      return;
    }
    for (const frame of frames) {
      if (socket.destroyed || !socket.writable) return;
      onFrame(frame);
    }
  };
  socket.on('data', onData);
  socket.on('end', () => stream?.end());
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearTimeout(helloTimer);
    stream?.gone();
  });
  if (rest.length > 0) onData(rest);
}

/** The first frame: a HELLO the guard lets through starts the pipe; anything else ends it. */
function hello(
  frame: Frame,
  socket: Socket,
  certName: string | undefined,
  serving: PipeSocketServing,
): PipeStream | undefined {
  const entries = frame.kind === FrameKind.hello ? parseHello(frame.payload) : undefined;
  if (entries === undefined) {
    const why = `A replication pipe must start with a HELLO of at most ${HELLO_BYTES_MAX} bytes of JSON naming the caller.`;
    refuse(socket, new TesseraError('BAD_REQUEST', why), serving.log);
    return undefined;
  }
  const refusal = serving.gatekeeper.admit({
    method: pipeMethod.path,
    nodeId: entries[NODE_METADATA],
    proof: entries[AUTH_METADATA],
    certName,
    nowMs: Date.now(),
    protocol: entries[PROTOCOL_METADATA],
    clusterId: entries[CLUSTER_METADATA],
    identity: entries[IDENTITY_METADATA],
  });
  if (refusal !== undefined) {
    refuse(socket, refusal, serving.log);
    return undefined;
  }
  socket.write(encodeFrame(FrameKind.accept, new Uint8Array(0)));
  const sendBufferBytesMax = serving.sendBufferBytesMax ?? PIPE_SEND_BUFFER_BYTES_MAX;
  return serving.pipes.serve(
    socketCarrier(socket, sendBufferBytesMax, serving.log),
    serving.handler,
    serving.log,
  );
}

function serveFrame(stream: PipeStream, frame: Frame, socket: Socket): void {
  if (frame.kind === FrameKind.request) {
    stream.receive(pipeMethod.requestDeserialize(frame.payload));
    return;
  }
  if (frame.kind === FrameKind.ping) {
    socket.write(encodeFrame(FrameKind.pong, new Uint8Array(0)));
    return;
  }
  stream.fail(
    new TesseraError(
      'BAD_REQUEST',
      `A replication pipe carries REQUEST frames after its HELLO, not frames of kind ${frame.kind}.`,
    ),
  );
}

function socketCarrier(socket: Socket, sendBufferBytesMax: number, log: Logger): PipeCarrierEnd {
  return {
    write: (message) => {
      if (socket.writableLength > sendBufferBytesMax) {
        log.warn(
          { bytes: socket.writableLength },
          'a peer stopped reading its replication pipe; it is cut off',
        );
        socket.destroy();
        return;
      }
      socket.write(encodeFrame(FrameKind.response, pipeMethod.responseSerialize(message)));
    },
    end: () => socket.end(),
    fail: (error) => {
      socket.end(encodeFrame(FrameKind.fail, encodeJson(toWireError(error, 'Pipe', log))));
    },
  };
}

function refuse(socket: Socket, error: TesseraError, log: Logger): void {
  socket.end(encodeFrame(FrameKind.refuse, encodeJson(toWireError(error, 'Pipe', log))));
}
