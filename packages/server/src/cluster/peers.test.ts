import { type ClusterState, createRing, TesseraError } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { NodeMetrics } from '../node/metrics.js';
import type { PeerClient } from '../transport/peer-api.js';
import { PeerDirectory } from './peers.js';

describe('PeerDirectory call metrics', () => {
  it('times every call to a peer by method and counts failures by code', async () => {
    const client = {
      address: 'b:1',
      close: () => {},
      read: async () => undefined,
      replicate: async () => {
        throw new TesseraError('TIMEOUT', 'too slow');
      },
    } as unknown as PeerClient;
    const state: ClusterState = {
      clusterId: 'c',
      ring: createRing(8, 'a'),
      members: [{ nodeId: 'b', http: 'b:0', peer: 'b:1', status: 'member', incarnation: 1 }],
    };
    const metrics = new NodeMetrics();
    const peers = new PeerDirectory('a', () => client, 1_000, Date.now, silentLogger(), {}, metrics);
    peers.sync(state);
    await peers.call('b', (c) => c.read('k', 100));
    await peers.call('b', (c) => c.read('k', 100));
    await expect(peers.call('b', (c) => c.replicate('k', new Uint8Array(), 100))).rejects.toThrow('too slow');
    // Through the blocked (fault injection) path as well.
    peers.block(['b']);
    await expect(peers.call('b', (c) => c.read('k', 100))).rejects.toThrow('blocked');
    expect(peers.client('b')?.address).toBe('b:1');

    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^tessera_peer_request_duration_seconds_count\{method="read"\} 3$/m);
    expect(text).toMatch(/^tessera_peer_request_duration_seconds_count\{method="replicate"\} 1$/m);
    expect(text).toMatch(/^tessera_peer_errors_total\{method="replicate",code="TIMEOUT"\} 1$/m);
    expect(text).toMatch(/^tessera_peer_errors_total\{method="read",code="PEER_UNAVAILABLE"\} 1$/m);
    expect(text).not.toMatch(/method="close"/);
  });
});
