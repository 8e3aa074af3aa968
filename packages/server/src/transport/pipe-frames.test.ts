/**
 * The pipe's framing: whatever way TCP cuts the bytes, the reader gives back the frames sent, and
 * it refuses bytes that are not frames (an unknown kind) or a frame past its limit as soon as the
 * header says so, before buffering the payload.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameError, FrameKind, FrameReader } from './pipe-frames.js';

const kinds = Object.values(FrameKind);

function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(bytes.subarray(from, p));
    from = p;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

describe('pipe frames', () => {
  it('reads back the frames sent, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom(...kinds), payload: fc.uint8Array({ maxLength: 300 }) }), {
          maxLength: 20,
        }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (frames, at) => {
          const bytes = Buffer.concat(frames.map((f) => encodeFrame(f.kind, f.payload)));
          const reader = new FrameReader(1_000);
          const read = cut(bytes, at).flatMap((chunk) =>
            reader.push(chunk).map((f) => ({ kind: f.kind, payload: new Uint8Array(f.payload) })),
          );
          expect(read).toEqual(frames.map((f) => ({ kind: f.kind, payload: new Uint8Array(f.payload) })));
        },
      ),
    );
  });

  it('refuses a frame past the limit from its header alone, with VALUE_TOO_LARGE', () => {
    const header = encodeFrame(FrameKind.request, new Uint8Array(2_000)).subarray(0, 5);
    const error = captured(() => new FrameReader(1_000).push(header));
    expect(error).toBeInstanceOf(FrameError);
    expect((error as FrameError).code).toBe('VALUE_TOO_LARGE');
    expect((error as FrameError).message).toMatch(/2000 bytes, over the limit of 1000/);
  });

  it('refuses bytes that are not its frames (an HTTP/2 preface, an unknown kind) with BAD_REQUEST', () => {
    for (const bytes of [Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 0, 99])]) {
      const error = captured(() => new FrameReader(1 << 20).push(bytes));
      expect((error as FrameError).code).toBe('BAD_REQUEST');
    }
  });
});

function captured(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
