/**
 * The peer port: one listener for gRPC and the replication pipe's own framing (pipe-frames.ts).
 * With mTLS the TLS handshake decides (ALPN: `h2` is gRPC, PIPE_ALPN the pipe) and both verify the
 * caller's certificate against the cluster CA first; on plaintext the first bytes do (PIPE_MAGIC is
 * the pipe, anything else goes to gRPC untouched). gRPC connections are handed to grpc-js through
 * its connection injector, so its server, interceptors and shutdown work as on its own listener.
 */
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { PeerTlsPems } from './credentials.js';
import { PIPE_ALPN, PIPE_MAGIC } from './pipe-frames.js';

/** How long a plaintext connection may take to send its first bytes, by default. */
export const SNIFF_TIMEOUT_MS = 10_000;
/** Connections open at once, at most (gRPC and pipes together); more are closed at once. */
export const PEER_CONNECTIONS_MAX = 4_096;

export interface PeerListenerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly tls?: PeerTlsPems;
  /** A gRPC connection (plaintext, or TLS already terminated here). */
  readonly grpc: (socket: Socket) => void;
  /** A pipe connection: `rest` is what followed the magic; `certName` the TLS caller's CN. */
  readonly pipe: (socket: Socket, rest: Buffer, certName: string | undefined) => void;
  /** An error of the listener itself once it listens (a failed accept): logged, it listens on. */
  readonly onError: (error: Error) => void;
  /** How long a plaintext connection may take to send its first bytes; default SNIFF_TIMEOUT_MS. */
  readonly sniffTimeoutMs?: number | undefined;
}

export interface PeerListener {
  readonly port: number;
  /** Stops accepting connections; resolves once every connection is closed. */
  close(): Promise<void>;
  /** Destroys every connection still open (after their owners had their chance to end them). */
  destroyConnections(): void;
}

export async function listenForPeers(options: PeerListenerOptions): Promise<PeerListener> {
  const server = options.tls === undefined ? plaintextServer(options) : tlsServer(options, options.tls);
  server.maxConnections = PEER_CONNECTIONS_MAX;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      server.on('error', options.onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    destroyConnections: () => {
      for (const socket of open) socket.destroy();
    },
  };
}

function plaintextServer(options: PeerListenerOptions): NetServer {
  return createNetServer((socket) => sniff(socket, options));
}

function tlsServer(options: PeerListenerOptions, pems: PeerTlsPems): NetServer {
  const server = createTlsServer({
    ca: pems.ca,
    cert: pems.cert,
    key: pems.key,
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: ['h2', PIPE_ALPN],
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === PIPE_ALPN) options.pipe(socket, Buffer.alloc(0), certName(socket));
    else options.grpc(socket);
  });
  // A failed handshake (no or a wrong certificate) ends that connection only.
  server.on('tlsClientError', (_error, socket) => socket.destroy());
  return server;
}

function certName(socket: TLSSocket): string | undefined {
  const cn = socket.getPeerCertificate().subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn;
}

/** Reads a plaintext connection's first bytes: the pipe's magic, or gRPC's (given back untouched). */
function sniff(socket: Socket, options: PeerListenerOptions): void {
  let seen: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), options.sniffTimeoutMs ?? SNIFF_TIMEOUT_MS);
  timer.unref();
  const done = (): void => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onError);
    socket.off('close', onClose);
  };
  const onData = (chunk: Buffer): void => {
    seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const known = Math.min(seen.length, PIPE_MAGIC.length);
    const maybePipe = seen.subarray(0, known).equals(PIPE_MAGIC.subarray(0, known));
    if (maybePipe && seen.length < PIPE_MAGIC.length) return;
    done();
    socket.pause();
    if (maybePipe) {
      options.pipe(socket, seen.subarray(PIPE_MAGIC.length), undefined);
      socket.resume();
      return;
    }
    socket.unshift(seen);
    options.grpc(socket);
  };
  const onError = (): void => {
    done();
    socket.destroy();
  };
  const onClose = (): void => done();
  socket.on('data', onData);
  socket.on('error', onError);
  socket.on('close', onClose);
}
