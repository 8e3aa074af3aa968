/**
 * The peer port's connection limits: a plaintext connection that says nothing, a pipe caller that
 * never says HELLO, and a caller that stops reading its replies are each cut off, and nobody else is.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, FakePeer } from '../../test/grpc-kit.js';
import * as pb from './generated/tessera/peer/v1/peer.js';
import { type PeerServerHandle, startPeerServer } from './grpc-server.js';
import { encodeFrame, type Frame, FrameKind, FrameReader, PIPE_MAGIC } from './pipe-frames.js';
import { encodeJson } from './pipe-hello.js';

const TIMEOUT_MS = 300;
const SEND_BUFFER_BYTES_MAX = 256 * 1024;
const { logger, lines: warnings } = capturingLogger();
const peer = new FakePeer();
let server: PeerServerHandle;

beforeAll(async () => {
  server = await startPeerServer(peer, {
    host: '127.0.0.1',
    port: 0,
    logger,
    connectionLimits: {
      sniffTimeoutMs: TIMEOUT_MS,
      helloTimeoutMs: TIMEOUT_MS,
      pipeSendBufferBytesMax: SEND_BUFFER_BYTES_MAX,
    },
  });
});
afterAll(() => server.close());

interface Raw {
  readonly socket: Socket;
  readonly frames: Frame[];
  readonly closed: Promise<number>;
}

/** A raw connection collecting the frames it receives; `closed` resolves with when it closed. */
function raw(): Raw {
  const socket = connect({ host: '127.0.0.1', port: server.port });
  const reader = new FrameReader(8 << 20);
  const frames: Frame[] = [];
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
  socket.on('error', () => undefined);
  return { socket, frames, closed: once(socket, 'close').then(() => Date.now()) };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const hello = (): Buffer => Buffer.concat([PIPE_MAGIC, encodeFrame(FrameKind.hello, encodeJson({}))]);
const readRequest = (id: number, key: string): Uint8Array =>
  encodeFrame(FrameKind.request, pb.PipeRequest.encode({ calls: [{ id, read: { key } }] }).finish());

describe('the peer port', () => {
  it('closes a plaintext connection that sends nothing once sniffTimeoutMs passed', async () => {
    const startedMs = Date.now();
    const silent = raw();
    const closedMs = await silent.closed;
    expect(closedMs - startedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it('closes a pipe whose caller sends no HELLO within helloTimeoutMs; one that did is served on', async () => {
    const mute = raw();
    const polite = raw();
    mute.socket.write(PIPE_MAGIC);
    polite.socket.write(hello());
    await mute.closed;
    expect(mute.frames).toEqual([]);
    peer.states.set('after-the-timeout', new Uint8Array([1]));
    polite.socket.write(readRequest(1, 'after-the-timeout'));
    await waitFor(() => polite.frames.length >= 2, 'the reply');
    expect(polite.frames.map((f) => f.kind)).toEqual([FrameKind.accept, FrameKind.response]);
    expect(pb.PipeResponse.decode(polite.frames[1]!.payload).replies[0]?.read?.found).toBe(true);
    polite.socket.destroy();
  });

  it('cuts off a pipe caller that stops reading once its unread replies pass the send buffer limit', async () => {
    peer.states.set('large', new Uint8Array(1024 * 1024));
    const reader = raw();
    reader.socket.pause();
    reader.socket.write(hello());
    const requests = 64;
    for (let id = 1; id <= requests; id++) reader.socket.write(readRequest(id, 'large'));
    await waitFor(() => warnings.some((w) => w.includes('stopped reading')), 'the cut-off warning');
    reader.socket.resume();
    await reader.closed;
    const replies = reader.frames.filter((f) => f.kind === FrameKind.response).length;
    expect(replies).toBeGreaterThan(0);
    expect(replies).toBeLessThan(requests);
    // The server serves other callers on.
    const next = raw();
    next.socket.write(Buffer.concat([hello(), readRequest(1, 'after-the-timeout')]));
    await waitFor(() => next.frames.length >= 2, 'a reply to the next caller');
    next.socket.destroy();
  });
});
