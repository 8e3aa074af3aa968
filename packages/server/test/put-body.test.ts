/** A put's body checked by hand (schemas.ts parsePutBody): the same result or error as putBodySchema. */
import { CONTEXT_CHARS_MAX } from '@tessera/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInput, parsePutBody, putBodySchema, VALUE_DEPTH_MAX } from '../src/http/schemas.js';

/** What `f` answers, or the code, message and details of what it throws. */
function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (err) {
    const { code, message, details } = err as { code?: unknown; message: string; details?: unknown };
    return { error: { code, message, details } };
  }
}

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

const context = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constant('c'.repeat(CONTEXT_CHARS_MAX)),
  fc.constant('c'.repeat(CONTEXT_CHARS_MAX + 1)),
  fc.anything(),
);
const value = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(VALUE_DEPTH_MAX - 1, VALUE_DEPTH_MAX, VALUE_DEPTH_MAX + 1).map(nested),
  fc.anything(),
);
const body = fc.oneof(
  fc.record({ value }, { requiredKeys: [] }),
  fc.record({ value, context }, { requiredKeys: [] }),
  fc.record({ value, context, extra: fc.anything() }, { requiredKeys: ['extra'] }),
  fc.jsonValue(),
  fc.anything(),
);

describe('a put body checked by hand', () => {
  it('answers as putBodySchema does, on bodies of every shape', () => {
    fc.assert(
      fc.property(body, (input) => {
        expect(outcome(() => parsePutBody(input))).toEqual(
          outcome(() => parseInput(putBodySchema, input, 'body')),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('refuses what the schema refuses, with its message', () => {
    for (const input of [
      { context: 'c1.x' },
      { value: 1, extra: 2 },
      { value: 1, context: 7 },
      { value: nested(VALUE_DEPTH_MAX + 1) },
      { value: 1, context: 'c'.repeat(CONTEXT_CHARS_MAX + 1) },
      [1],
      'text',
      null,
    ]) {
      expect(() => parsePutBody(input)).toThrow(/Invalid body/);
    }
    expect(parsePutBody({ value: nested(VALUE_DEPTH_MAX), context: 'c1.x' })).toEqual({
      value: nested(VALUE_DEPTH_MAX),
      context: 'c1.x',
    });
  });
});
