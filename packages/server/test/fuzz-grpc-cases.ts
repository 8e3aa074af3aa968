/** What the peer gRPC fuzzing sends (fuzz-grpc.test.ts): field arbitraries and one row per RPC. */
import { encodeState, type KeyState, type Sibling } from '@tessera/core';
import fc from 'fast-check';
import * as pb from '../src/transport/generated/tessera/peer/v1/peer.js';

const u32 = fc.oneof(
  fc.constantFrom(0, 1, 63, 64, 1023, 1024, 2 ** 31 - 1, 2 ** 32 - 1),
  fc.nat({ max: 2 ** 32 - 1 }),
);
const u64 = fc.oneof(u32, fc.constantFrom(2 ** 53 - 1, Number.MAX_SAFE_INTEGER));
const weirdString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', '\u0000', 'n0', 'ghost', '127.0.0.1:1', '[::1]:99999', 'a'.repeat(70)),
  fc.string({ unit: 'grapheme-ascii', minLength: 1000, maxLength: 2100 }),
);
/** Keys the fuzzing writes to; the `known-` keys are never among them. */
export const FUZZED_KEYS = ['fuzz-a', 'fuzz-b', 'fuzz-c'] as const;
const key = fc.oneof(fc.constantFrom(...FUZZED_KEYS), weirdString);
const bytes = fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(new Uint8Array(0)));

/** A value that is JSON, or is not. */
const valueBytes = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((v) => new TextEncoder().encode(JSON.stringify(v))),
  fc
    .constantFrom('{', 'not json', '\u0000', '"unterminated', '1 2', '')
    .map((t) => new TextEncoder().encode(t)),
  fc.uint8Array({ maxLength: 32 }),
);

const sibling: fc.Arbitrary<Sibling> = fc.record({
  dot: fc.record({ node: fc.oneof(fc.constantFrom('n0', 'ghost', ''), weirdString), counter: u64 }),
  lastModifiedMs: u64,
  value: valueBytes,
});

/** Encoded states, from plausible to absurd (thousands of siblings, huge clocks and times, non-JSON values). */
const stateBytes = fc.oneof(
  fc
    .record({
      vv: fc.array(
        fc.record({
          node: fc.oneof(fc.constantFrom('n0', 'ghost'), weirdString),
          counter: u64,
          timestampMs: u64,
        }),
        { maxLength: 4 },
      ),
      siblings: fc.array(sibling, { maxLength: 4 }),
      deletedAtMs: fc.option(u64, { nil: undefined }),
    })
    .map((s) => encodeState(s as KeyState)),
  fc.integer({ min: 100, max: 12_000 }).map((count) =>
    encodeState({
      vv: [{ node: 'ghost', counter: count, timestampMs: 1 }],
      siblings: Array.from({ length: count }, (_, i) => ({
        dot: { node: 'ghost', counter: i + 1 },
        lastModifiedMs: 1,
        value: new TextEncoder().encode(`${i}`),
      })),
    }),
  ),
  bytes,
);

const member = fc.record({
  nodeId: fc.oneof(fc.constantFrom('n0', 'ghost'), weirdString),
  http: fc.oneof(fc.constantFrom('127.0.0.1:1', '[::1]:2'), weirdString),
  peer: fc.oneof(fc.constantFrom('127.0.0.1:3'), weirdString),
  status: fc.integer({ min: -1, max: 7 }),
  incarnation: u64,
});

const ring = fc.record({
  partitionCount: u32,
  owners: fc.oneof(
    fc.array(fc.constantFrom('n0', 'ghost'), { maxLength: 70 }),
    fc.constant(Array.from({ length: 64 }, () => 'n0')),
  ),
  version: u64,
});

export interface MethodCase {
  readonly name: string;
  readonly path: string;
  readonly stream?: boolean;
  /** A bidirectional stream (the replication pipe): the bytes are sent as one message. */
  readonly bidi?: boolean;
  /** Well-formed requests with field values from plausible to absurd. */
  readonly requests: fc.Arbitrary<Uint8Array>;
}

const encoded =
  <T>(codec: { encode(m: T): { finish(): Uint8Array } }) =>
  (message: T): Uint8Array =>
    codec.encode(message).finish();

/**
 * One row per peer RPC: how to call it and well-formed requests from plausible to absurd. A new
 * RPC is covered by adding a row. `clusterId` is the fuzzed node's, so some states pass its checks.
 */
export function peerMethods(clusterId: () => string): readonly MethodCase[] {
  const clusterState = fc.record({
    clusterId: fc.oneof(
      fc.constant(null).map(() => clusterId()),
      weirdString,
    ),
    ring,
    members: fc.oneof(fc.array(member, { maxLength: 4 }), fc.constant([])),
    pending: fc.option(
      fc.record({
        next: ring,
        kind: fc.constantFrom('join', 'leave', 'remove', 'x'),
        nodeId: weirdString,
        done: fc.array(weirdString, { maxLength: 3 }),
      }),
      { nil: undefined },
    ),
    history: fc.array(
      fc.record({ ringVersion: u64, kind: fc.constantFrom('join', 'x'), nodeId: weirdString, atMs: u64 }),
      { maxLength: 3 },
    ),
  });
  return [
    {
      name: 'Read',
      path: pb.PeerService.read.path,
      requests: fc.record({ key }).map(encoded(pb.ReadRequest)),
    },
    {
      name: 'Replicate',
      path: pb.PeerService.replicate.path,
      requests: fc
        .record({
          key,
          state: stateBytes,
          hint: fc.option(fc.oneof(fc.constantFrom('n0', 'ghost'), weirdString), { nil: undefined }),
        })
        .map(encoded(pb.ReplicateRequest)),
    },
    {
      name: 'Coordinate',
      path: pb.PeerService.coordinate.path,
      requests: fc
        .record({
          key,
          value: fc.option(valueBytes, { nil: undefined }),
          context: fc.option(weirdString, { nil: undefined }),
          w: fc.option(u32, { nil: undefined }),
          timeoutMs: u32,
        })
        .map(encoded(pb.CoordinateRequest)),
    },
    {
      name: 'Gossip',
      path: pb.PeerService.gossip.path,
      requests: fc
        .record({ state: clusterState })
        .map((r) => encoded(pb.GossipRequest)(r as pb.GossipRequest)),
    },
    {
      name: 'Join',
      path: pb.PeerService.join.path,
      requests: fc.record({ member }).map((r) => encoded(pb.JoinRequest)(r as pb.JoinRequest)),
    },
    {
      name: 'MerkleHashes',
      path: pb.PeerService.merkleHashes.path,
      requests: fc
        .record({
          partition: u32,
          level: u32,
          indices: fc.oneof(
            fc.array(u32, { maxLength: 40 }),
            fc.constant(Array.from({ length: 5000 }, (_, i) => i)),
          ),
        })
        .map(encoded(pb.MerkleHashesRequest)),
    },
    {
      name: 'MerkleKeys',
      path: pb.PeerService.merkleKeys.path,
      requests: fc
        .record({ partition: u32, buckets: fc.array(u32, { maxLength: 40 }), keysMax: u32 })
        .map(encoded(pb.MerkleKeysRequest)),
    },
    {
      name: 'TransferPartition',
      path: pb.PeerService.transferPartition.path,
      stream: true,
      requests: fc
        .record({ partition: u32, afterKey: fc.option(weirdString, { nil: undefined }), keysMax: u32 })
        .map(encoded(pb.TransferPartitionRequest)),
    },
    {
      name: 'Pipe',
      path: pb.PeerService.pipe.path,
      bidi: true,
      requests: fc
        .array(
          fc.record({
            id: u32,
            read: fc.option(fc.record({ key }), { nil: undefined }),
            replicate: fc.option(fc.record({ key, state: stateBytes }), { nil: undefined }),
          }),
          { maxLength: 8 },
        )
        .map((calls) => encoded(pb.PipeRequest)({ calls })),
    },
  ];
}

/** Random bytes, or a request of the method truncated or with bytes flipped. */
export function broken(requests: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    fc.tuple(requests, fc.nat()).map(([b, cut]) => b.subarray(0, cut % (b.length + 1))),
    fc
      .tuple(
        requests,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
      )
      .map(([b, flips]) => {
        const out = Uint8Array.from(b);
        for (const [at, byte] of flips) if (out.length > 0) out[at % out.length] = byte;
        return out;
      }),
  );
}
