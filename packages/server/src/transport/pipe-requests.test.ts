/** The pipe's hand-written checks accept exactly what the zod schemas accept, with the same result. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEY_BYTES_MAX, parseWire, readRequestSchema, replicateRequestSchema } from './convert.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import { parseReadCall, parseReplicateCall } from './pipe-requests.js';

/** What `f` answers, or the message of what it throws. */
function outcome(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const key = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', minLength: 330, maxLength: 1100 }),
  fc.constant('k'.repeat(KEY_BYTES_MAX)),
  fc.constant('é'.repeat(KEY_BYTES_MAX / 2 + 1)),
  fc.constant(''),
  fc.anything(),
);
const state = fc.oneof(fc.uint8Array({ maxLength: 8 }), fc.constant(Buffer.from('x')), fc.anything());
const hint = fc.oneof(
  fc.constant(undefined),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/),
  fc.string({ maxLength: 70 }),
  fc.anything(),
);

describe('pipe calls checked by hand', () => {
  it('a Replicate call: the same result or the same error as replicateRequestSchema', () => {
    fc.assert(
      fc.property(key, state, hint, fc.boolean(), (k, s, h, withHint) => {
        const request = (
          withHint ? { key: k, state: s, hint: h } : { key: k, state: s }
        ) as pb.ReplicateRequest;
        expect(outcome(() => parseReplicateCall(request))).toEqual(
          outcome(() => parseWire(replicateRequestSchema, request, 'BAD_REQUEST', 'Peer Replicate request')),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('a Read call: the same result or the same error as readRequestSchema', () => {
    fc.assert(
      fc.property(key, (k) => {
        const request = { key: k } as pb.ReadRequest;
        expect(outcome(() => parseReadCall(request))).toEqual(
          outcome(() => parseWire(readRequestSchema, request, 'BAD_REQUEST', 'Peer Read request')),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses an empty state and a bad hint with the schema’s message', () => {
    const empty = { key: 'k', state: new Uint8Array(0) } as pb.ReplicateRequest;
    expect(() => parseReplicateCall(empty)).toThrow(/state must not be empty/);
    const badHint = { key: 'k', state: new Uint8Array(1), hint: 'no spaces' } as pb.ReplicateRequest;
    expect(() => parseReplicateCall(badHint)).toThrow(/hint must be 1 to 64 characters/);
  });
});
