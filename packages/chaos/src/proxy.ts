/**
 * A fault-injecting TCP proxy for one directed link (node A dialling node B): A's peer client is
 * pointed at the proxy (`peerDialOverrides`), the proxy forwards to B. Both directions of A's
 * connections to B pass through it, so a fault on the proxy is a fault on "A's traffic to B"
 * (B's own calls to A go through the proxy of the link B->A).
 *
 * Faults: `partition` resets every connection and refuses new ones; `stall` holds every byte
 * (sockets paused: TCP backpressure, nothing lost) until healed, so only deadlines and keepalives
 * notice; `slow` delays every chunk, in order; `lossy` resets a connection at a random chunk (TCP
 * cannot lose bytes without breaking the stream, so loss shows as resets, as on a real flaky link).
 */
import { createServer, type Server, Socket } from 'node:net';
import type { Rng } from '@tessera/core';

export type LinkFault =
  | { readonly kind: 'ok' }
  | { readonly kind: 'partition' }
  | { readonly kind: 'stall' }
  | { readonly kind: 'slow'; readonly delayMs: number; readonly jitterMs: number }
  | { readonly kind: 'lossy'; readonly dropRate: number };

export const LINK_OK: LinkFault = { kind: 'ok' };

/** Connections one proxy carries at once, at most; more are refused. */
const CONNECTIONS_MAX = 256;
/** Bytes a slow link holds in its delay queue per direction before it stops reading. */
const DELAY_QUEUE_BYTES_MAX = 4 * 1024 * 1024;

interface Pipe {
  readonly client: Socket;
  readonly upstream: Socket;
}

export interface LinkProxyStats {
  readonly accepted: number;
  readonly refused: number;
  readonly reset: number;
}

export class LinkProxy {
  private server: Server | undefined;
  private readonly pipes = new Set<Pipe>();
  private current: LinkFault = LINK_OK;
  private counts = { accepted: 0, refused: 0, reset: 0 };
  private listenPort = 0;

  constructor(
    readonly from: string,
    readonly to: string,
    private readonly target: { readonly host: string; readonly port: number },
    private readonly random: Rng,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.listenPort}`;
  }

  get fault(): LinkFault {
    return this.current;
  }

  stats(): LinkProxyStats {
    return { ...this.counts };
  }

  /** Listens on `port` (0: a free port the OS picks) on loopback. */
  async listen(port = 0): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.listenPort = typeof address === 'object' && address !== null ? address.port : port;
    this.server = server;
  }

  /** Sets the link's fault; `ok` heals it. Stalled bytes flow again when the stall ends. */
  set(fault: LinkFault): void {
    const was = this.current;
    this.current = fault;
    if (fault.kind === 'partition') for (const pipe of this.pipes) this.reset(pipe);
    if (fault.kind === 'stall') for (const pipe of this.pipes) pausePipe(pipe);
    if (was.kind === 'stall' && fault.kind !== 'stall') for (const pipe of this.pipes) resumePipe(pipe);
  }

  async close(): Promise<void> {
    for (const pipe of this.pipes) this.reset(pipe);
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const fault = this.current;
    const refuse =
      fault.kind === 'partition' ||
      this.pipes.size >= CONNECTIONS_MAX ||
      (fault.kind === 'lossy' && this.random() < fault.dropRate);
    if (refuse) {
      this.counts.refused++;
      client.resetAndDestroy();
      return;
    }
    this.counts.accepted++;
    const upstream = new Socket();
    const pipe: Pipe = { client, upstream };
    this.pipes.add(pipe);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const done = (): void => {
      if (!this.pipes.delete(pipe)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', done).on('close', done);
    upstream.on('error', done).on('close', done);
    this.forward(pipe, client, upstream);
    this.forward(pipe, upstream, client);
    upstream.connect(this.target.port, this.target.host);
    if (fault.kind === 'stall') pausePipe(pipe);
  }

  /** Copies `source` to `sink` through the link's current fault. */
  private forward(pipe: Pipe, source: Socket, sink: Socket): void {
    let queuedBytes = 0;
    let releaseAtMs = 0;
    let ended = false;
    source.on('data', (chunk: Buffer) => {
      const fault = this.current;
      if (fault.kind === 'partition' || (fault.kind === 'lossy' && this.random() < fault.dropRate)) {
        this.reset(pipe);
        return;
      }
      if (fault.kind !== 'slow' && queuedBytes === 0) {
        sink.write(chunk);
        return;
      }
      // Slow (or draining what a slow period queued): deliver in order, each chunk delayed.
      const delayMs = fault.kind === 'slow' ? fault.delayMs + this.random() * fault.jitterMs : 0;
      releaseAtMs = Math.max(releaseAtMs, Date.now() + delayMs);
      queuedBytes += chunk.length;
      if (queuedBytes > DELAY_QUEUE_BYTES_MAX) source.pause();
      setTimeout(
        () => {
          queuedBytes -= chunk.length;
          if (!sink.destroyed) sink.write(chunk);
          if (ended && queuedBytes === 0) sink.end();
          if (queuedBytes <= DELAY_QUEUE_BYTES_MAX && this.current.kind !== 'stall') source.resume();
        },
        Math.max(0, releaseAtMs - Date.now()),
      );
    });
    source.on('end', () => {
      ended = true;
      if (queuedBytes === 0) sink.end();
    });
  }

  private reset(pipe: Pipe): void {
    if (!this.pipes.delete(pipe)) return;
    this.counts.reset++;
    pipe.client.resetAndDestroy();
    pipe.upstream.destroy();
  }
}

function pausePipe(pipe: Pipe): void {
  pipe.client.pause();
  pipe.upstream.pause();
}

function resumePipe(pipe: Pipe): void {
  pipe.client.resume();
  pipe.upstream.resume();
}
