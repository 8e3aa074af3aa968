import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeCalls,
  decodeReplies,
  encodeCalls,
  encodeReplies,
  frameReader,
  GET,
  type ProbeCall,
  type ProbeReply,
  PUT,
} from './frames.js';

const call = fc.record({
  id: fc.nat({ max: 0xffff_ffff }),
  kind: fc.constantFrom(PUT, GET),
  key: fc.string({ unit: 'grapheme', maxLength: 40 }),
  value: fc.uint8Array({ maxLength: 300 }),
});
const reply = fc.record({
  id: fc.nat({ max: 0xffff_ffff }),
  value: fc.option(fc.uint8Array({ maxLength: 300 }), { nil: undefined }),
});

/** The frames `bytes` holds, split into chunks at `cuts` as a socket might deliver them. */
function framesOf(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const frames: Buffer[] = [];
  const read = frameReader((f) => frames.push(Buffer.from(f)));
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const end = Math.min(bytes.length, at + cut);
    read(bytes.subarray(at, end));
    at = end;
  }
  read(bytes.subarray(at));
  return frames;
}

const plain = (calls: readonly ProbeCall[]) => calls.map((c) => ({ ...c, value: [...c.value] }));
const plainReplies = (rs: readonly ProbeReply[]) =>
  rs.map((r) => ({ id: r.id, value: r.value === undefined ? undefined : [...r.value] }));

describe('probe frames', () => {
  it('carry every call of a tick, in order, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(call, { maxLength: 8 }), { maxLength: 4 }),
        fc.array(fc.nat(64)),
        (ticks, cuts) => {
          const frames = framesOf(Buffer.concat(ticks.map(encodeCalls)), cuts);
          expect(frames.map((f) => plain(decodeCalls(f)))).toEqual(ticks.map(plain));
        },
      ),
    );
  });

  it('carry replies with and without a value', () => {
    fc.assert(
      fc.property(fc.array(reply, { maxLength: 10 }), fc.array(fc.nat(64)), (replies, cuts) => {
        const [frame] = framesOf(encodeReplies(replies), cuts);
        expect(plainReplies(decodeReplies(frame!))).toEqual(plainReplies(replies));
      }),
    );
  });

  it('refuse a record that runs past its frame, and a frame longer than the bound', () => {
    const frame = encodeCalls([{ id: 1, kind: PUT, key: 'k', value: new Uint8Array(10) }]).subarray(4);
    expect(() => decodeCalls(frame.subarray(0, frame.length - 1))).toThrow(RangeError);
    const huge = Buffer.alloc(4);
    huge.writeUInt32LE(0xffff_ffff, 0);
    expect(() => frameReader(() => {})(huge)).toThrow(RangeError);
  });
});
