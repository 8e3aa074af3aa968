/**
 * The caller's side of the replication pipe: one long-lived connection to a peer that carries
 * replica reads and writes (pipe-socket-client.ts; gRPC's stream to a node of the release before,
 * pipe-grpc.ts). Calls made during one event-loop tick leave as one message; the peer answers them
 * in batches too. A call waits for its reply until its deadline, checked by one sweeper per pipe
 * rather than a timer per call. A connection that fails fails its calls in flight (with
 * PEER_UNAVAILABLE, or the error the peer gave); the next call opens a new one.
 */
import { TesseraError } from '@tessera/core';
import { CallSlots } from './call-slots.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import { fromWireError } from './wire-error.js';

/** One pipe connection as PipeClient sees it, whatever carries it. */
export interface PipeCarrier {
  write(message: pb.PipeRequest): void;
  end(): void;
}

/** What a carrier tells its PipeClient; never from inside the `OpenPipe` call that made it. */
export interface PipeEvents {
  replies(message: pb.PipeResponse): void;
  /** The carrier is gone (called once): calls in flight on it fail with `failure(rpc)`. */
  broken(failure: (rpc: string) => TesseraError): void;
}

/** Opens a pipe connection to the peer. */
export type OpenPipe = (events: PipeEvents) => PipeCarrier;

/** A batch (of calls, or of their replies) is sent at once when its values pass this size, to stay far below message limits. */
export const PIPE_BATCH_BYTES_MAX = 512 * 1024;
/** Calls waiting for a reply on one pipe, at most; past it new calls fail with OVERLOADED. */
export const PIPE_CALLS_MAX = 20_000;
/** Room for ids, tags and lengths around the calls of one message (at most an eighth of it). */
const MESSAGE_OVERHEAD_BYTES = 64 * 1024;
/** How often deadlines of calls in flight are checked. */
const SWEEP_MS = 10;
/** A held batch leaves at once when it reaches this many calls (see `holdMs`). */
export const PIPE_HOLD_CALLS_MAX = 16;

export type PipeOp = Pick<pb.PipeCall, 'read' | 'replicate'>;

interface Pending {
  readonly id: number;
  readonly rpc: string;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly stream: PipeCarrier;
  resolve(reply: pb.PipeReply): void;
  reject(error: TesseraError): void;
}

/** Slots for calls in flight: a power of two above PIPE_CALLS_MAX, so a free one is always near. */
const CALL_SLOTS = 32_768;

export interface PipeClientOptions {
  /** The peer's limit on one message: a call that cannot fit fails alone, before it is sent. */
  readonly messageBytesMax: number;
  readonly now?: () => number;
  /**
   * Nagle-style coalescing: while earlier calls still wait for replies (the pipe is busy), a batch
   * of writes smaller than PIPE_HOLD_CALLS_MAX calls waits this long for more before it leaves,
   * so that a partly loaded node sends fewer, fuller messages (less CPU per write, on both ends).
   * 0 sends every batch at the end of its tick. A call on an idle pipe, and a read, never waits.
   */
  readonly holdMs?: number;
}

export class PipeClient {
  private stream: PipeCarrier | undefined;
  private readonly pending = new CallSlots<Pending>(CALL_SLOTS);
  /** No call in flight has an earlier deadline: sweeps before it look at nothing. */
  private nextDeadline = Number.POSITIVE_INFINITY;
  private outbox: pb.PipeCall[] = [];
  private outboxBytes = 0;
  private flushQueued = false;
  private holdTimer: NodeJS.Timeout | undefined;
  private nextId = 1;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly openPipe: OpenPipe,
    private readonly address: string,
    private readonly options: PipeClientOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sends `op` in the current tick's batch; resolves with the peer's reply or rejects with its error. */
  call(op: PipeOp, rpc: string, timeoutMs: number): Promise<pb.PipeReply> {
    if (this.closed) return Promise.reject(this.unavailable(rpc, 'the client is closed'));
    if (this.pending.size >= PIPE_CALLS_MAX) {
      return Promise.reject(
        new TesseraError(
          'OVERLOADED',
          `${PIPE_CALLS_MAX} calls to peer ${this.address} are waiting for replies; retry shortly.`,
          { peer: this.address, rpc },
        ),
      );
    }
    const bytes = opBytes(op);
    if (bytes > this.roomBytes()) {
      return Promise.reject(
        new TesseraError(
          'VALUE_TOO_LARGE',
          `A ${rpc} of ${bytes} bytes cannot be sent to peer ${this.address}: one message holds at most ${this.options.messageBytesMax} bytes. Lower valueBytesMax.`,
          { peer: this.address, rpc, bytes, messageBytesMax: this.options.messageBytesMax },
        ),
      );
    }
    const stream = this.open();
    const id = this.takeId();
    return new Promise((resolve, reject) => {
      const deadline = this.now() + timeoutMs;
      this.pending.add({ id, rpc, deadline, timeoutMs, stream, resolve, reject });
      this.nextDeadline = Math.min(this.nextDeadline, deadline);
      // Fields named, not spread: V8's object clone, once per call.
      this.enqueue({ id, read: op.read, replicate: op.replicate }, bytes);
      this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
    });
  }

  close(): void {
    this.closed = true;
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.stream?.end();
    this.fail(undefined, (rpc) => this.unavailable(rpc, 'the client is closed'));
    this.stream = undefined;
  }

  private open(): PipeCarrier {
    if (this.stream !== undefined) return this.stream;
    const stream: PipeCarrier = this.openPipe({
      replies: (message) => this.receive(message),
      broken: (failure) => this.broken(stream, failure),
    });
    this.stream = stream;
    return stream;
  }

  /** The stream is gone: its calls in flight fail, and the next call opens a new stream. */
  private broken(stream: PipeCarrier, failure: (rpc: string) => TesseraError): void {
    if (this.stream === stream) {
      this.stream = undefined;
      // Calls queued for this stream but not yet sent fail with it.
      this.outbox = [];
      this.outboxBytes = 0;
    }
    this.fail(stream, failure);
  }

  private fail(stream: PipeCarrier | undefined, failure: (rpc: string) => TesseraError): void {
    this.pending.forEach((p) => {
      if (stream !== undefined && p.stream !== stream) return;
      this.pending.delete(p.id);
      p.reject(failure(p.rpc));
    });
    this.stopSweeperIfIdle();
  }

  private enqueue(call: pb.PipeCall, bytes: number): void {
    if (this.outboxBytes + bytes > this.roomBytes()) this.flush();
    this.outbox.push(call);
    this.outboxBytes += bytes;
    if (this.outboxBytes >= PIPE_BATCH_BYTES_MAX) this.flush();
    else if (!this.flushQueued) {
      this.flushQueued = true;
      if (this.holds(call)) this.holdTimer = setTimeout(() => this.flush(), this.options.holdMs);
      else setImmediate(() => this.flush());
    } else if (
      this.holdTimer !== undefined &&
      (this.outbox.length >= PIPE_HOLD_CALLS_MAX || call.read !== undefined)
    ) {
      // Full enough, or a read joined (reads are not held): it leaves at the end of this tick.
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
      setImmediate(() => this.flush());
    }
  }

  /**
   * Whether a new batch starting with `call` waits for more: only writes (replicate calls), and
   * only while earlier calls still wait for replies. A write's batch is what a replica commits in
   * one LevelDB batch, where fuller batches save the most; a read gains little and would wait.
   */
  private holds(call: pb.PipeCall): boolean {
    const holdMs = this.options.holdMs ?? 0;
    return holdMs > 0 && call.replicate !== undefined && this.pending.size > this.outbox.length;
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.holdTimer !== undefined) {
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
    }
    if (this.outbox.length === 0) return;
    const calls = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    const stream = this.stream;
    if (stream === undefined) return;
    stream.write({ calls });
  }

  private receive(message: pb.PipeResponse): void {
    for (const reply of message.replies) {
      const p = this.pending.get(reply.id);
      if (p === undefined) continue; // timed out already
      this.pending.delete(reply.id);
      if (reply.error !== undefined) {
        const { code, message: text, details } = reply.error;
        p.reject(fromWireError(code, text, details, { peer: this.address, rpc: p.rpc }));
      } else {
        p.resolve(reply);
      }
    }
    this.stopSweeperIfIdle();
  }

  /** Fails the calls whose deadline passed; looks at them only once the earliest one may have. */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextDeadline) return;
    let next = Number.POSITIVE_INFINITY;
    this.pending.forEach((p) => {
      if (p.deadline > now) {
        next = Math.min(next, p.deadline);
        return;
      }
      this.pending.delete(p.id);
      p.reject(
        new TesseraError(
          'TIMEOUT',
          `Peer ${this.address} did not answer ${p.rpc} within ${p.timeoutMs} ms.`,
          {
            peer: this.address,
            rpc: p.rpc,
          },
        ),
      );
    });
    this.nextDeadline = next;
    this.stopSweeperIfIdle();
  }

  private stopSweeperIfIdle(): void {
    if (this.pending.size > 0 || this.sweeper === undefined) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** What the calls of one message may add up to. */
  private roomBytes(): number {
    return messageRoomBytes(this.options.messageBytesMax);
  }

  private takeId(): number {
    // Ids wrap within uint32; one still waiting after 4 billion later calls is long timed out.
    do {
      this.nextId = this.nextId >= 0xffff_ffff ? 1 : this.nextId + 1;
    } while (this.pending.taken(this.nextId));
    return this.nextId;
  }

  private unavailable(rpc: string, why: string): TesseraError {
    return peerUnavailable(this.address, rpc, why);
  }
}

/** What the calls or replies of one message of at most `messageBytesMax` may add up to. */
export function messageRoomBytes(messageBytesMax: number): number {
  return messageBytesMax - Math.min(MESSAGE_OVERHEAD_BYTES, Math.floor(messageBytesMax / 8));
}

/** An upper bound on the encoded size of one call (keys counted at 3 bytes per UTF-16 unit). */
function opBytes(op: PipeOp): number {
  const key = op.replicate?.key ?? op.read?.key ?? '';
  return 32 + 3 * key.length + (op.replicate?.state.length ?? 0) + 3 * (op.replicate?.hint?.length ?? 0);
}

/** The error of a call whose pipe could not be used. */
export function peerUnavailable(peer: string, rpc: string, why: string): TesseraError {
  return new TesseraError('PEER_UNAVAILABLE', `Peer ${peer} is unavailable: ${why}.`, { peer, rpc });
}
