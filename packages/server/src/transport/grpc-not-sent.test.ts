/**
 * A peer call's PEER_UNAVAILABLE says whether the request surely never left (`NOT_SENT`): only then
 * may a forwarded write be coordinated elsewhere. A coordinator killed mid-call drops its
 * connection; that failure must not claim the call was never sent, for the peer may have run it.
 */
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectTesseraError, FakePeer, TIMEOUT_MS } from '../../test/grpc-kit.js';
import { waitFor } from '../../test/helpers.js';
import { silentLogger } from '../logger.js';
import { createPeerClient } from './grpc-client.js';
import { startPeerServer } from './grpc-server.js';
import { failedBeforeSending, type PeerClient } from './peer-api.js';

const write = { key: 'k', w: 2, timeoutMs: TIMEOUT_MS, value: new TextEncoder().encode('1') };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );
}

/** A TCP relay to `port` that can cut every connection through it, as a peer's death does. */
async function relay(port: number): Promise<{ port: number; cut: () => void }> {
  const sockets: Socket[] = [];
  const server = createServer((inbound) => {
    const outbound = tcpConnect(port, '127.0.0.1');
    sockets.push(inbound, outbound);
    inbound.pipe(outbound).on('error', () => {});
    outbound.pipe(inbound).on('error', () => {});
    inbound.on('error', () => {});
    outbound.on('error', () => {});
  });
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const cut = () => {
    for (const socket of sockets) socket.destroy();
  };
  return { port: await listen(server), cut };
}

function client(port: number): PeerClient {
  const c = createPeerClient(`127.0.0.1:${port}`);
  cleanups.push(() => c.close());
  return c;
}

describe('gRPC peer calls: sent or not', () => {
  it('says NOT_SENT when nothing listens at the peer address', async () => {
    const closed = createServer();
    const port = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await expectTesseraError(client(port).coordinate(write, TIMEOUT_MS), 'PEER_UNAVAILABLE');
    expect(failedBeforeSending(error)).toBe(true);
  });

  it('says NOT_SENT on a closed client', async () => {
    const c = createPeerClient('127.0.0.1:1');
    c.close();
    const error = await expectTesseraError(c.coordinate(write, TIMEOUT_MS), 'PEER_UNAVAILABLE');
    expect(failedBeforeSending(error)).toBe(true);
  });

  it('does not say NOT_SENT when the connection drops while the peer runs the call', async () => {
    const peer = new FakePeer();
    peer.hang = true;
    const server = await startPeerServer(peer, { host: '127.0.0.1', port: 0, logger: silentLogger() });
    cleanups.push(() => server.close());
    cleanups.push(() => peer.release());
    const through = await relay(server.port);
    const call = client(through.port).coordinate(write, TIMEOUT_MS);
    await waitFor(() => peer.calls.includes('coordinate'), TIMEOUT_MS, 'the peer runs the call');
    through.cut();
    const error = await expectTesseraError(call, 'PEER_UNAVAILABLE');
    expect(failedBeforeSending(error)).toBe(false);
  });
});
