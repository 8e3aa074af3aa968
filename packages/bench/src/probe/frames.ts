/**
 * The probe's peer protocol (probe/node.ts): frames of a u32 little-endian length and records. A
 * request record is an id (u32), a kind (u8: put or get), a key (u16 length, UTF-8) and a value
 * (u32 length, bytes); a reply record is an id, a status (u8: found or not) and a value. One frame
 * carries every call (or reply) of one event-loop tick.
 */

export const PUT = 1;
export const GET = 2;
export type Kind = typeof PUT | typeof GET;

export interface ProbeCall {
  readonly id: number;
  readonly kind: Kind;
  readonly key: string;
  readonly value: Uint8Array;
}

export interface ProbeReply {
  readonly id: number;
  /** undefined: the replica holds no value (a get of an absent key). */
  readonly value: Uint8Array | undefined;
}

/** A frame's length is refused above this (a probe's frames hold one tick's small calls). */
export const FRAME_BYTES_MAX = 64 * 1024 * 1024;
const CALL_HEAD_BYTES = 11;
const REPLY_HEAD_BYTES = 9;
const EMPTY = new Uint8Array(0);

export function encodeCalls(calls: readonly ProbeCall[]): Buffer {
  const keys = calls.map((c) => Buffer.from(c.key));
  let bytes = 0;
  calls.forEach((c, i) => {
    bytes += CALL_HEAD_BYTES + keys[i]!.length + c.value.length;
  });
  const out = Buffer.allocUnsafe(4 + bytes);
  out.writeUInt32LE(bytes, 0);
  let at = 4;
  calls.forEach((c, i) => {
    const key = keys[i]!;
    out.writeUInt32LE(c.id, at);
    out.writeUInt8(c.kind, at + 4);
    out.writeUInt16LE(key.length, at + 5);
    out.writeUInt32LE(c.value.length, at + 7);
    at += CALL_HEAD_BYTES;
    at += key.copy(out, at);
    out.set(c.value, at);
    at += c.value.length;
  });
  return out;
}

export function decodeCalls(frame: Buffer): ProbeCall[] {
  const calls: ProbeCall[] = [];
  let at = 0;
  while (at < frame.length) {
    const id = frame.readUInt32LE(at);
    const kind = frame.readUInt8(at + 4);
    const keyBytes = frame.readUInt16LE(at + 5);
    const valueBytes = frame.readUInt32LE(at + 7);
    const keyAt = at + CALL_HEAD_BYTES;
    const valueAt = keyAt + keyBytes;
    at = valueAt + valueBytes;
    if ((kind !== PUT && kind !== GET) || at > frame.length) throw new RangeError('a malformed probe call');
    const key = frame.toString('utf8', keyAt, valueAt);
    calls.push({ id, kind, key, value: frame.subarray(valueAt, at) });
  }
  return calls;
}

export function encodeReplies(replies: readonly ProbeReply[]): Buffer {
  let bytes = 0;
  for (const r of replies) bytes += REPLY_HEAD_BYTES + (r.value?.length ?? 0);
  const out = Buffer.allocUnsafe(4 + bytes);
  out.writeUInt32LE(bytes, 0);
  let at = 4;
  for (const r of replies) {
    const value = r.value ?? EMPTY;
    out.writeUInt32LE(r.id, at);
    out.writeUInt8(r.value === undefined ? 1 : 0, at + 4);
    out.writeUInt32LE(value.length, at + 5);
    out.set(value, at + REPLY_HEAD_BYTES);
    at += REPLY_HEAD_BYTES + value.length;
  }
  return out;
}

export function decodeReplies(frame: Buffer): ProbeReply[] {
  const replies: ProbeReply[] = [];
  let at = 0;
  while (at < frame.length) {
    const id = frame.readUInt32LE(at);
    const found = frame.readUInt8(at + 4) === 0;
    const valueBytes = frame.readUInt32LE(at + 5);
    const valueAt = at + REPLY_HEAD_BYTES;
    at = valueAt + valueBytes;
    if (at > frame.length) throw new RangeError('a malformed probe reply');
    replies.push({ id, value: found ? frame.subarray(valueAt, at) : undefined });
  }
  return replies;
}

/** Splits a byte stream into frames; `onFrame` gets each frame's records. */
export function frameReader(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const bytes = pending.readUInt32LE(0);
      if (bytes > FRAME_BYTES_MAX) throw new RangeError(`a probe frame of ${bytes} bytes`);
      if (pending.length < 4 + bytes) break;
      onFrame(pending.subarray(4, 4 + bytes));
      pending = pending.subarray(4 + bytes);
    }
  };
}
