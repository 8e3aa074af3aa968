/**
 * The hand-rendered answers are the JSON a serializer would make of them: a put's answer is the
 * text of JSON.stringify, for any context and receipt (node ids with characters JSON escapes).
 */
import type { WriteAck, WriteReceipt } from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderWriteAnswer } from './render.js';

const text = fc.string({ unit: 'binary', maxLength: 40 });
const ack: fc.Arbitrary<WriteAck> = fc.oneof(
  fc.record({ node: text, as: fc.constant('replica' as const) }),
  fc.record({ node: text, as: fc.constant('hint' as const), for: text }),
);
const receipt: fc.Arbitrary<WriteReceipt> = fc.record({
  acks: fc.array(ack, { maxLength: 6 }),
  replicas: fc.nat(9),
  n: fc.integer({ min: 1, max: 9 }),
  w: fc.integer({ min: 1, max: 9 }),
});

describe('renderWriteAnswer', () => {
  it("is JSON.stringify's text of { context, stored }", () => {
    fc.assert(
      fc.property(text, fc.option(receipt, { nil: undefined }), (context, stored) => {
        const expected = JSON.stringify(stored === undefined ? { context } : { context, stored });
        expect(renderWriteAnswer(context, stored)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
