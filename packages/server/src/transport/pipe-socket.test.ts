/**
 * The replication pipe on its own framing, on the peer port beside gRPC: the bytes a caller sends,
 * what a peer client uses, the fallback to gRPC for a node of the release before, refusals, and a
 * peer that goes silent.
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  clusterState,
  expectTesseraError,
  FakePeer,
  peerServerForFile,
  TIMEOUT_MS,
} from '../../test/grpc-kit.js';
import { createCa, issueNodeCertificate } from '../security/dev-ca.js';
import { type PeerTlsPems, peerClientSecurity } from './credentials.js';
import * as pb from './generated/tessera/peer/v1/peer.js';
import { createPeerClient } from './grpc-client.js';
import { startPeerServer } from './grpc-server.js';
import { peerGatekeeper, peerGuard } from './peer-guard.js';
import { PipeClient, type PipeEvents } from './pipe-client.js';
import { encodeFrame, type Frame, FrameKind, FrameReader, PIPE_MAGIC } from './pipe-frames.js';
import { encodeJson, parseWireError } from './pipe-hello.js';
import { addGrpcPipeService, OpenPipes } from './pipe-server.js';
import { LEGACY_RETRY_MS, socketPipe } from './pipe-socket-client.js';

const silent = pino({ level: 'silent' });
const peer = new FakePeer();
const server = peerServerForFile(peer);

/** Opens a raw connection to `port` and collects the frames it receives until it closes. */
function raw(port: number): { socket: Socket; frames: Frame[]; closed: Promise<void> } {
  const socket = connect({ host: '127.0.0.1', port });
  const reader = new FrameReader(1 << 20);
  const frames: Frame[] = [];
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
  socket.on('error', () => undefined);
  return { socket, frames, closed: once(socket, 'close').then(() => undefined) };
}

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('replication pipe on its own frames', () => {
  it('answers HELLO with ACCEPT, then serves the calls of a REQUEST in one RESPONSE', async () => {
    const { socket, frames } = raw(server.port());
    const request: pb.PipeRequest = {
      calls: [
        { id: 7, replicate: { key: 'framed', state: new Uint8Array([1, 2, 3]) } },
        { id: 8, read: { key: 'absent' } },
      ],
    };
    socket.write(
      Buffer.concat([
        PIPE_MAGIC,
        encodeFrame(FrameKind.hello, encodeJson({})),
        encodeFrame(FrameKind.request, pb.PipeRequest.encode(request).finish()),
      ]),
    );
    await waitFor(() => frames.length >= 2);
    socket.destroy();
    expect(frames[0]!.kind).toBe(FrameKind.accept);
    expect(frames[1]!.kind).toBe(FrameKind.response);
    const { replies } = pb.PipeResponse.decode(frames[1]!.payload);
    expect(replies.map((r) => r.id).sort()).toEqual([7, 8]);
    expect(replies.find((r) => r.id === 8)?.read?.found).toBe(false);
    expect(peer.states.get('framed')).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('is what a peer client uses (its connections start with the magic), while gRPC calls share the port', async () => {
    const seen: Buffer[] = [];
    const proxy = await tcpProxy(server.port(), (first) => seen.push(first));
    const client = createPeerClient(`127.0.0.1:${proxy.port}`);
    try {
      await client.replicate('via-client', new Uint8Array([9]), TIMEOUT_MS);
      expect(await client.read('via-client', TIMEOUT_MS)).toEqual(new Uint8Array([9]));
      expect(await client.merkleHashes(0, 0, [0], TIMEOUT_MS)).toBeInstanceOf(Uint8Array);
      expect(seen.some((first) => first.subarray(0, PIPE_MAGIC.length).equals(PIPE_MAGIC))).toBe(true);
      expect(seen.some((first) => first.toString('latin1').startsWith('PRI * HTTP/2.0'))).toBe(true);
    } finally {
      client.close();
      proxy.server.close();
    }
  });

  it('refuses bytes that are not its frames with BAD_REQUEST, and serves on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 5, maxLength: 64 }), async (bytes) => {
        const { socket, frames, closed } = raw(server.port());
        socket.end(Buffer.concat([PIPE_MAGIC, Buffer.from(bytes)]));
        await closed;
        for (const frame of frames) {
          expect([FrameKind.refuse, FrameKind.accept, FrameKind.fail]).toContain(frame.kind);
          if (frame.kind !== FrameKind.accept) expect(parseWireError(frame.payload)?.code).toBeDefined();
        }
      }),
      { numRuns: 40 },
    );
    const { socket, frames, closed } = raw(server.port());
    socket.write(Buffer.concat([PIPE_MAGIC, Buffer.from([0, 0, 0, 0, 99])]));
    await closed;
    expect(frames.map((f) => f.kind)).toEqual([FrameKind.refuse]);
    expect(parseWireError(frames[0]!.payload)?.code).toBe('BAD_REQUEST');
    const client = createPeerClient(`127.0.0.1:${server.port()}`);
    try {
      expect(await client.read('framed', TIMEOUT_MS)).toEqual(new Uint8Array([1, 2, 3]));
    } finally {
      client.close();
    }
  });

  it('reaches a node of the release before (the pipe on gRPC only) over gRPC', async () => {
    const old = new GrpcServer();
    const legacyPeer = new FakePeer();
    addGrpcPipeService(old, new OpenPipes(), legacyPeer, silent);
    const port = await new Promise<number>((resolve, reject) =>
      old.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error === null ? resolve(bound) : reject(error),
      ),
    );
    const client = createPeerClient(`127.0.0.1:${port}`);
    try {
      await client.replicate('old', new Uint8Array([4]), TIMEOUT_MS);
      expect(await client.read('old', TIMEOUT_MS)).toEqual(new Uint8Array([4]));
      expect(legacyPeer.states.get('old')).toEqual(new Uint8Array([4]));
    } finally {
      client.close();
      old.forceShutdown();
    }
  });

  it('sends what it wrote before the answer over gRPC to a node of the release before, and tries the pipe again a minute later', async () => {
    // A gRPC-only node answers the magic with HTTP/2 frames (its SETTINGS), not the pipe's.
    let connections = 0;
    const old = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.end(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]));
    });
    old.listen(0, '127.0.0.1');
    await once(old, 'listening');
    const address = `127.0.0.1:${(old.address() as { port: number }).port}`;
    const overGrpc: pb.PipeRequest[] = [];
    let nowMs = 1_000_000;
    const open = socketPipe(address, {
      hello: () => ({}),
      messageBytesMax: 1 << 20,
      now: () => nowMs,
      legacy: (_events: PipeEvents) => ({ write: (message) => overGrpc.push(message), end: () => undefined }),
    });
    const events: PipeEvents = { replies: () => undefined, broken: () => undefined };
    const request = (key: string): pb.PipeRequest => ({ calls: [{ id: 1, read: { key } }] });
    try {
      open(events).write(request('first'));
      await waitFor(() => overGrpc.length === 1);
      expect(overGrpc[0]!.calls[0]!.read?.key).toBe('first');
      open(events).write(request('second'));
      expect(overGrpc.map((m) => m.calls[0]!.read?.key)).toEqual(['first', 'second']);
      expect(connections).toBe(1);
      nowMs += LEGACY_RETRY_MS;
      open(events).write(request('third'));
      await waitFor(() => overGrpc.length === 3);
      expect(connections).toBe(2);
    } finally {
      old.close();
    }
  });

  it('gives up a connection whose peer goes silent: a PING unanswered fails the calls waiting', async () => {
    const mute = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.write(encodeFrame(FrameKind.accept, new Uint8Array(0)));
    });
    mute.listen(0, '127.0.0.1');
    await once(mute, 'listening');
    const address = `127.0.0.1:${(mute.address() as { port: number }).port}`;
    const open = socketPipe(address, {
      hello: () => ({}),
      messageBytesMax: 1 << 20,
      legacy: () => {
        throw new Error('not a legacy peer');
      },
      pingAfterMs: 100,
      pongTimeoutMs: 100,
    });
    const client = new PipeClient(open, address, { messageBytesMax: 1 << 20 });
    try {
      const started = Date.now();
      const error = await expectTesseraError(
        client.call({ read: { key: 'k' } }, 'Read', 30_000),
        'PEER_UNAVAILABLE',
      );
      expect(error.message).toMatch(/no answer for \d+ ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      client.close();
      mute.close();
    }
  });
});

describe('replication pipe with mTLS', () => {
  const ca = createCa('pipe test CA', 1);
  const pems = (nodeId: string): PeerTlsPems => {
    const issued = issueNodeCertificate(ca, nodeId, ['127.0.0.1'], 1);
    return {
      ca: Buffer.from(ca.certPem),
      cert: Buffer.from(issued.certPem),
      key: Buffer.from(issued.keyPem),
    };
  };
  const serverPems = pems('server');
  const settings = {
    security: { mtls: true, clusterSecret: undefined },
    state: () => clusterState(['a', 'b']),
  };

  it('serves a member over TLS, and refuses a caller whose certificate names another node', async () => {
    const tlsPeer = new FakePeer();
    const gatekeeper = peerGatekeeper(settings, silent);
    const secure = await startPeerServer(tlsPeer, {
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      security: { interceptors: [peerGuard(settings, silent, gatekeeper)], gatekeeper, tls: serverPems },
    });
    const a = createPeerClient(`127.0.0.1:${secure.port}`, {
      security: peerClientSecurity('a', undefined, pems('a')),
    });
    const liar = createPeerClient(`127.0.0.1:${secure.port}`, {
      security: peerClientSecurity('a', undefined, pems('b')),
    });
    try {
      await a.replicate('tls', new Uint8Array([5]), TIMEOUT_MS);
      expect(tlsPeer.states.get('tls')).toEqual(new Uint8Array([5]));
      const error = await expectTesseraError(
        liar.replicate('tls', new Uint8Array([6]), TIMEOUT_MS),
        'UNAUTHENTICATED',
      );
      expect(error.message).toMatch(/certificate is for "b"/);
      expect(tlsPeer.states.get('tls')).toEqual(new Uint8Array([5]));
    } finally {
      a.close();
      liar.close();
      await secure.close();
    }
  });

  it('reaches a TLS node of the release before (gRPC only, which refuses the ALPN protocol) over gRPC', async () => {
    const old = new GrpcServer();
    const legacyPeer = new FakePeer();
    addGrpcPipeService(old, new OpenPipes(), legacyPeer, silent);
    const credentials = ServerCredentials.createSsl(
      serverPems.ca,
      [{ cert_chain: serverPems.cert, private_key: serverPems.key }],
      true,
    );
    const port = await new Promise<number>((resolve, reject) =>
      old.bindAsync('127.0.0.1:0', credentials, (error, bound) =>
        error === null ? resolve(bound) : reject(error),
      ),
    );
    const client = createPeerClient(`127.0.0.1:${port}`, {
      security: peerClientSecurity('a', undefined, pems('a')),
    });
    try {
      await client.replicate('old-tls', new Uint8Array([7]), TIMEOUT_MS);
      expect(await client.read('old-tls', TIMEOUT_MS)).toEqual(new Uint8Array([7]));
    } finally {
      client.close();
      old.forceShutdown();
    }
  });
});

/** Forwards connections to `port`, telling `first` the first bytes each one sent. */
async function tcpProxy(
  port: number,
  first: (bytes: Buffer) => void,
): Promise<{ server: Server; port: number }> {
  const proxy = createServer((inbound) => {
    const outbound = connect({ host: '127.0.0.1', port });
    inbound.once('data', (chunk: Buffer) => first(chunk));
    inbound.pipe(outbound).on('error', () => undefined);
    outbound.pipe(inbound).on('error', () => undefined);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  return { server: proxy, port: (proxy.address() as { port: number }).port };
}
