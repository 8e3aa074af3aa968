/**
 * The replication pipe's own framing, on the peer port beside gRPC (pipe-listener.ts): on a
 * plaintext connection the caller first sends PIPE_MAGIC (which no HTTP/2 client sends), with TLS
 * it asks for the ALPN protocol PIPE_ALPN instead. Then both sides exchange frames: a 4-byte
 * big-endian payload length, a 1-byte kind, the payload.
 *
 *   caller: HELLO (who it is, as JSON: pipe-hello.ts), then REQUEST (a protobuf PipeRequest)…
 *   server: ACCEPT or REFUSE (a wire error as JSON, then the connection ends), then RESPONSE
 *           (a protobuf PipeResponse)…, or FAIL (a wire error: the pipe ends; its calls are unknown)
 *   either: PING from the caller when it waits and hears nothing, PONG from the server
 *
 * Against the pipe on gRPC (HTTP/2 framing, flow control, per-message copies) these frames cost a
 * coordinator 5-9% and a replica 10-19% less CPU per operation (docs/benchmarks.md, thirteenth
 * round).
 */

/** What a plaintext caller sends first; an HTTP/2 client sends "PRI * HTTP/2.0…" there. */
export const PIPE_MAGIC: Buffer = Buffer.from('TSPIPE1\n', 'latin1');
/** The ALPN protocol a TLS caller asks for (gRPC asks for h2). */
export const PIPE_ALPN = 'tessera-pipe/1';

export const FRAME_HEADER_BYTES = 5;

export const FrameKind = {
  hello: 1,
  accept: 2,
  refuse: 3,
  request: 4,
  response: 5,
  fail: 6,
  /** Asked by a caller whose calls wait while nothing arrives; answered with PONG. */
  ping: 7,
  pong: 8,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const KINDS: ReadonlySet<number> = new Set(Object.values(FrameKind));

export interface Frame {
  readonly kind: FrameKind;
  /** A view of the bytes read (no copy). */
  readonly payload: Buffer;
}

/** Bytes that are not frames of this protocol (an unknown kind), or a frame past the limit. */
export class FrameError extends Error {
  constructor(
    readonly code: 'BAD_REQUEST' | 'VALUE_TOO_LARGE',
    message: string,
  ) {
    super(message);
  }
}

/** One frame's bytes: header and payload in one buffer, for one socket write. */
export function encodeFrame(kind: FrameKind, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out[4] = kind;
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/**
 * Cuts a byte stream into frames. `push` answers the frames its chunk completed (payloads are
 * views of the chunks, valid as long as the caller keeps them) and throws FrameError on bytes that
 * cannot be this protocol, before buffering more than one frame of at most `payloadBytesMax`.
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the pending frame needs in all: its header, then header and payload once known. */
  private needed = FRAME_HEADER_BYTES;

  constructor(private readonly payloadBytesMax: number) {}

  push(chunk: Buffer): Frame[] {
    if (this.pendingBytes > 0) {
      // A large frame arrives in many chunks: they are joined once, when it is complete.
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < this.needed) return [];
      chunk = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const frames: Frame[] = [];
    let at = 0;
    this.needed = FRAME_HEADER_BYTES;
    while (chunk.length - at >= FRAME_HEADER_BYTES) {
      const length = chunk.readUInt32BE(at);
      const kind = chunk[at + 4]!;
      if (!KINDS.has(kind)) throw new FrameError('BAD_REQUEST', `unknown pipe frame kind ${kind}`);
      if (length > this.payloadBytesMax)
        throw new FrameError(
          'VALUE_TOO_LARGE',
          `a pipe message of ${length} bytes, over the limit of ${this.payloadBytesMax} (messageBytesMax); lower valueBytesMax`,
        );
      const end = at + FRAME_HEADER_BYTES + length;
      if (end > chunk.length) {
        this.needed = FRAME_HEADER_BYTES + length;
        break;
      }
      frames.push({ kind: kind as FrameKind, payload: chunk.subarray(at + FRAME_HEADER_BYTES, end) });
      at = end;
    }
    if (at < chunk.length) {
      const rest = chunk.subarray(at);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
    }
    return frames;
  }
}
