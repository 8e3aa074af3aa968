/**
 * The state an anti-entropy exchange reads from its peer is decoded within bounds and checked like
 * every state from a peer: a malformed one fails the exchange with BAD_REQUEST and is not merged.
 */
import { encodeState, type KeyState, partitionOf } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { ALLOW, Q, testCluster, write } from '../../test/anti-entropy/test-cluster.js';
import { expectTesseraError } from '../../test/grpc-kit.js';
import { exchangePartition } from './exchange.js';
import { DEFAULT_EXCHANGE_LIMITS } from './types.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const withValues = (values: readonly Uint8Array[]): KeyState => ({
  vv: [{ node: 'a', counter: Math.max(1, values.length), timestampMs: 1 }],
  siblings: values.map((value, i) => ({ dot: { node: 'a', counter: i + 1 }, lastModifiedMs: 1, value })),
});

describe('exchangePartition: the states a peer sends', () => {
  it.each([
    ['bytes that do not decode', Uint8Array.of(2, 9)],
    ['a value that is not JSON', encodeState(withValues([text('nope')]))],
    [
      'more siblings than a peer may send',
      encodeState(withValues(Array.from({ length: 10_001 }, () => text('2')))),
    ],
  ])('refuses %s with BAD_REQUEST and merges nothing', async (_what, reply) => {
    const cluster = await testCluster({ ids: ['a', 'b'], n: 2 });
    const key = 'k';
    await write(cluster, 'a', key, 'x');
    const real = cluster.net.peersOf('b').client('a')!;
    const exchange = exchangePartition(partitionOf(Q, key), {
      partitionCount: Q,
      store: cluster.node('b').store,
      client: { ...real, read: async () => reply },
      gate: ALLOW,
      limits: DEFAULT_EXCHANGE_LIMITS,
    });
    await expectTesseraError(exchange, 'BAD_REQUEST');
    expect(await cluster.node('b').store.read(key)).toBeUndefined();
  });
});
