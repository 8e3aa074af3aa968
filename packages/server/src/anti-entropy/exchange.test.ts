/**
 * The state an anti-entropy exchange reads from its peer is decoded within bounds and checked like
 * every state from a peer: a malformed one is refused with BAD_REQUEST, not merged, and reported as
 * a key the exchange could not repair (it goes on with the others).
 */
import { encodeState, type KeyState, partitionOf } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { ALLOW, Q, testCluster, write } from '../../test/anti-entropy/test-cluster.js';
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
  ])('refuses %s with BAD_REQUEST, merges nothing, and reports the key', async (_what, reply) => {
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
    const report = await exchange;
    expect(report).toMatchObject({ complete: false, keysFailed: 1, keysPulled: 0 });
    expect(report.keyFailure?.key).toBe(key);
    expect(report.keyFailure?.error.code).toBe('BAD_REQUEST');
    expect(await cluster.node('b').store.read(key)).toBeUndefined();
  });
});
