/** The settings the chaos suite relies on: a node's clock offset and dialling peers at other addresses. */
import { type ClusterState, createRing } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { PeerDirectory } from './cluster/peers.js';
import { parseConfig } from './config.js';
import { silentLogger } from './logger.js';
import { nodeClock } from './node/clock.js';
import type { PeerClient } from './transport/peer-api.js';

const base = { nodeId: 'n0', http: '127.0.0.1:7000', peer: '127.0.0.1:8000', dataDir: '/tmp/x' };

describe('clockOffsetMs', () => {
  it('is refused unless fault injection is on, with a message that says so', () => {
    expect(() => parseConfig({ ...base, clockOffsetMs: 5_000 })).toThrow(/faultInjection: true/);
    expect(parseConfig({ ...base, clockOffsetMs: -5_000, faultInjection: true }).clockOffsetMs).toBe(-5_000);
    expect(() => parseConfig({ ...base, clockOffsetMs: 1.5, faultInjection: true })).toThrow(/clockOffsetMs/);
  });

  it('shifts the node clock by the offset', () => {
    const clock = nodeClock({ clockOffsetMs: 60_000, faultInjection: true });
    expect(clock() - Date.now()).toBeGreaterThanOrEqual(59_000);
    expect(nodeClock({ clockOffsetMs: 0, faultInjection: false })).toBe(Date.now);
  });
});

describe('peerDialOverrides', () => {
  it('accepts node ids mapped to HOST:PORT and refuses anything else', () => {
    const config = parseConfig({ ...base, peerDialOverrides: { n1: '10.0.0.9:9001' } });
    expect(config.peerDialOverrides).toEqual({ n1: '10.0.0.9:9001' });
    expect(parseConfig(base).peerDialOverrides).toEqual({});
    expect(() => parseConfig({ ...base, peerDialOverrides: { n1: 'nowhere' } })).toThrow(/peerDialOverrides/);
    expect(() => parseConfig({ ...base, peerDialOverrides: { 'bad id!': '1.2.3.4:5' } })).toThrow(
      /peerDialOverrides/,
    );
  });

  it('makes the peer directory dial the override instead of the advertised address', () => {
    const dialled: string[] = [];
    const connect = (address: string): PeerClient => {
      dialled.push(address);
      return { address, close: () => {} } as unknown as PeerClient;
    };
    const peers = new PeerDirectory('n0', connect, 1_000, Date.now, silentLogger(), { n1: '127.0.0.1:9999' });
    const member = (nodeId: string, peer: string) =>
      ({ nodeId, http: 'h:1', peer, status: 'member', incarnation: 1 }) as const;
    const state: ClusterState = {
      clusterId: 'c',
      ring: createRing(8, 'n0'),
      members: [
        member('n0', '127.0.0.1:8000'),
        member('n1', '127.0.0.1:8001'),
        member('n2', '127.0.0.1:8002'),
      ],
    };
    peers.sync(state);
    expect(dialled.sort()).toEqual(['127.0.0.1:8002', '127.0.0.1:9999']);
    peers.sync(state);
    expect(dialled).toHaveLength(2);
  });
});
