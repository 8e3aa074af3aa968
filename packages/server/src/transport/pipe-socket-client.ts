/**
 * The replication pipe over its own framing (pipe-frames.ts): one TCP connection (TLS when peers use
 * mTLS) per peer, on the peer's gRPC port (peer-listener.ts tells them apart). The caller sends its
 * HELLO and its first requests at once; requests sent before the server's ACCEPT are kept until it
 * comes, so that a peer of the release before gets them over gRPC instead (pipe-grpc.ts), and is
 * reached that way for LEGACY_RETRY_MS before the next try. Such a peer answers the magic with
 * HTTP/2 frames (its SETTINGS), which are not these frames, or its TLS refuses the ALPN protocol.
 *
 * A connection that hears nothing for PING_AFTER_MS asks with a PING (as gRPC's keepalive did) and
 * gives up when no answer comes either (a peer gone without a word, a network cut): its calls fail
 * with PEER_UNAVAILABLE and the next call connects again.
 */
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { TesseraError } from '@tessera/core';
import { splitHostPort } from '../util/host-port.js';
import type { PeerTlsPems } from './credentials.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import { type OpenPipe, type PipeCarrier, type PipeEvents, peerUnavailable } from './pipe-client.js';
import {
  encodeFrame,
  type Frame,
  FrameError,
  FrameKind,
  FrameReader,
  PIPE_ALPN,
  PIPE_MAGIC,
} from './pipe-frames.js';
import { encodeJson, type PipeHello, parseWireError } from './pipe-hello.js';
import { pipeMethod } from './service.js';
import { fromWireError } from './wire-error.js';

/** How long a peer found to speak gRPC only is reached over gRPC before the pipe is tried again. */
export const LEGACY_RETRY_MS = 60_000;
/** Nothing heard for this long: a PING goes out. */
export const PING_AFTER_MS = 5_000;
/** A PING unanswered for this long: the connection is given up. */
export const PONG_TIMEOUT_MS = 5_000;
const WATCH_MS = 1_000;

export interface SocketPipeOptions {
  readonly tls?: PeerTlsPems;
  /** The caller's identity, made for each connection (credentials.ts). */
  readonly hello: () => PipeHello;
  /** Largest reply accepted. */
  readonly messageBytesMax: number;
  /** The pipe over gRPC, for a peer of the release before. */
  readonly legacy: OpenPipe;
  readonly now?: () => number;
  /** Default PING_AFTER_MS and PONG_TIMEOUT_MS (shorter in tests). */
  readonly pingAfterMs?: number;
  readonly pongTimeoutMs?: number;
}

export function socketPipe(address: string, options: SocketPipeOptions): OpenPipe {
  const now = options.now ?? Date.now;
  let legacyUntilMs = Number.NEGATIVE_INFINITY;
  return (events) => {
    if (now() < legacyUntilMs) return options.legacy(events);
    return new SocketCarrier(address, options, events, now, () => {
      legacyUntilMs = now() + LEGACY_RETRY_MS;
    });
  };
}

type Phase = 'hello' | 'open' | 'legacy' | 'gone';

class SocketCarrier implements PipeCarrier {
  private readonly socket: Socket;
  private readonly reader: FrameReader;
  private phase: Phase = 'hello';
  /** Sent before ACCEPT: sent again over gRPC if the peer turns out to speak only that. */
  private unconfirmed: pb.PipeRequest[] = [];
  private fallback: PipeCarrier | undefined;
  private lastHeardMs: number;
  private pingSentMs: number | undefined;
  private readonly watch: NodeJS.Timeout;

  constructor(
    private readonly address: string,
    private readonly options: SocketPipeOptions,
    private readonly events: PipeEvents,
    private readonly now: () => number,
    private readonly markLegacy: () => void,
  ) {
    this.lastHeardMs = now();
    this.reader = new FrameReader(options.messageBytesMax);
    this.socket = this.connect();
    this.socket.on('data', (chunk: Buffer) => this.received(chunk));
    this.socket.on('error', (error: Error & { code?: string }) => this.failed(error));
    this.socket.on('close', () => this.failed(undefined));
    const watchMs = Math.min(WATCH_MS, options.pingAfterMs ?? WATCH_MS, options.pongTimeoutMs ?? WATCH_MS);
    this.watch = setInterval(() => this.check(), watchMs);
    this.watch.unref();
  }

  write(message: pb.PipeRequest): void {
    if (this.fallback !== undefined) {
      this.fallback.write(message);
      return;
    }
    if (this.phase === 'gone') return;
    if (this.phase === 'hello') this.unconfirmed.push(message);
    this.socket.write(encodeFrame(FrameKind.request, pipeMethod.requestSerialize(message)));
  }

  end(): void {
    if (this.fallback !== undefined) this.fallback.end();
    this.phase = 'gone';
    clearInterval(this.watch);
    this.socket.end();
  }

  private connect(): Socket {
    const { host, port } = splitHostPort(this.address);
    const tls = this.options.tls;
    const hello = encodeFrame(FrameKind.hello, encodeJson(this.options.hello()));
    if (tls === undefined) {
      const socket = connectTcp({ host, port, noDelay: true });
      socket.write(Buffer.concat([PIPE_MAGIC, hello]));
      return socket;
    }
    const socket = connectTls({
      host,
      port,
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      ALPNProtocols: [PIPE_ALPN],
      ...(isIP(host) === 0 ? { servername: host } : {}),
    });
    socket.setNoDelay(true);
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol !== PIPE_ALPN) this.legacy();
    });
    socket.write(hello);
    return socket;
  }

  private received(chunk: Buffer): void {
    this.lastHeardMs = this.now();
    this.pingSentMs = undefined;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      if (error.code === 'BAD_REQUEST' && this.phase === 'hello') this.legacy();
      else if (error.code === 'BAD_REQUEST') this.broken((rpc) => this.protocolError(rpc, error.message));
      else
        this.broken(
          (rpc) =>
            new TesseraError('VALUE_TOO_LARGE', `Peer ${this.address} sent ${error.message}.`, {
              peer: this.address,
              rpc,
            }),
        );
      return;
    }
    for (const frame of frames) {
      if (this.phase === 'gone' || this.phase === 'legacy') return;
      this.frame(frame);
    }
  }

  private frame(frame: Frame): void {
    switch (frame.kind) {
      case FrameKind.accept:
        this.phase = 'open';
        this.unconfirmed = [];
        return;
      case FrameKind.response:
        this.events.replies(pipeMethod.responseDeserialize(frame.payload));
        return;
      case FrameKind.refuse:
      case FrameKind.fail:
        this.broken(this.sentError(frame.payload));
        return;
      case FrameKind.pong:
        return;
      default:
        this.broken((rpc) => this.protocolError(rpc, `a frame of kind ${frame.kind}`));
    }
  }

  /** The error a REFUSE or FAIL frame carries. */
  private sentError(payload: Buffer): (rpc: string) => TesseraError {
    const sent = parseWireError(payload);
    const peer = this.address;
    if (sent === undefined) return (rpc) => this.protocolError(rpc, 'an unreadable error');
    return (rpc) => fromWireError(sent.code, sent.message, sent.details, { peer, rpc });
  }

  private protocolError(rpc: string, what: string): TesseraError {
    return peerUnavailable(this.address, rpc, `its replication pipe sent ${what}`);
  }

  /** The connection failed or closed (a TLS peer that refused the pipe's ALPN speaks only gRPC). */
  private failed(error: (Error & { code?: string }) | undefined): void {
    if (this.phase === 'hello' && error !== undefined && refusedAlpn(error)) {
      this.legacy();
      return;
    }
    const why = error === undefined ? 'the peer ended the stream' : error.message;
    this.broken((rpc) => peerUnavailable(this.address, rpc, why));
  }

  /** The peer speaks gRPC only: what was sent goes again over gRPC, and so does what follows. */
  private legacy(): void {
    if (this.phase !== 'hello') return;
    this.phase = 'legacy';
    clearInterval(this.watch);
    this.socket.destroy();
    this.markLegacy();
    const fallback = this.options.legacy(this.events);
    this.fallback = fallback;
    for (const message of this.unconfirmed) fallback.write(message);
    this.unconfirmed = [];
  }

  private broken(failure: (rpc: string) => TesseraError): void {
    if (this.phase === 'gone' || this.phase === 'legacy') return;
    this.phase = 'gone';
    clearInterval(this.watch);
    this.socket.destroy();
    this.events.broken(failure);
  }

  /** Nothing heard for a while: ask, and give up when the question goes unanswered too. */
  private check(): void {
    const now = this.now();
    if (this.pingSentMs !== undefined) {
      if (now - this.pingSentMs >= (this.options.pongTimeoutMs ?? PONG_TIMEOUT_MS))
        this.broken((rpc) =>
          peerUnavailable(this.address, rpc, `no answer for ${now - this.lastHeardMs} ms`),
        );
      return;
    }
    if (now - this.lastHeardMs >= (this.options.pingAfterMs ?? PING_AFTER_MS)) {
      this.pingSentMs = now;
      this.socket.write(encodeFrame(FrameKind.ping, new Uint8Array(0)));
    }
  }
}

/**
 * Whether TLS failed because the server offers no protocol the caller asked for (a gRPC-only peer):
 * OpenSSL's alert 120, reported as its own code on a read and as EPROTO with the alert's text on a
 * write.
 */
function refusedAlpn(error: Error & { code?: string }): boolean {
  return (
    error.code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' ||
    /alert no application protocol/.test(error.message)
  );
}
