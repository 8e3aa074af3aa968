import { createRing, TesseraError } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { expectTesseraError } from '../../test/grpc-kit.js';
import { PeerDirectory } from '../cluster/peers.js';
import { silentLogger } from '../logger.js';
import { type CoordinateReply, NOT_SENT, type PeerClient } from '../transport/peer-api.js';
import { forwardOrder, forwardWrite } from './forward.js';

const replicas = ['a', 'b', 'c'];
const up = () => false;

describe('forwardOrder', () => {
  it('coordinates here when this node is a replica and the context names no other live replica', () => {
    expect(forwardOrder('a', undefined, replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'a', replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'z', replicas, up)).toBeUndefined();
    expect(forwardOrder('a', 'b', replicas, (n) => n === 'b')).toBeUndefined();
  });

  it("goes to the context's coordinator alone from a replica, first and then the others from a non-replica", () => {
    expect(forwardOrder('a', 'b', replicas, up)).toEqual(['b']);
    expect(forwardOrder('z', 'b', replicas, up)).toEqual(['b', 'a', 'c']);
    expect(forwardOrder('z', undefined, replicas, up)).toEqual(['a', 'b', 'c']);
  });
});

describe('forwardWrite', () => {
  const write = { key: 'k', w: 2, timeoutMs: 1_000, value: new TextEncoder().encode('1') };

  /** A directory of peers b and c whose `coordinate` does what `answers` says; records who was asked. */
  function directory(answers: Record<string, () => Promise<CoordinateReply>>) {
    const asked: string[] = [];
    const connect = (address: string): PeerClient => {
      const node = address.split(':')[0]!;
      const coordinate = () => {
        asked.push(node);
        return answers[node]!();
      };
      return { address, coordinate, close: () => {} } as unknown as PeerClient;
    };
    const peers = new PeerDirectory('a', connect, 60_000, Date.now, silentLogger());
    peers.sync({
      clusterId: 'c',
      ring: createRing(8, 'a'),
      members: ['b', 'c'].map((nodeId) => ({
        nodeId,
        http: `${nodeId}:0`,
        peer: `${nodeId}:1`,
        status: 'member' as const,
        incarnation: 1,
      })),
    });
    return { peers, asked };
  }

  const reply: CoordinateReply = { context: 'ctx-from-c' };
  const unavailable = (details: Record<string, unknown>) => () =>
    Promise.reject(new TesseraError('PEER_UNAVAILABLE', 'peer b is unavailable', { peer: 'b', ...details }));

  it('goes on to the next node when the call surely never left (no connection)', async () => {
    const { peers, asked } = directory({ b: unavailable(NOT_SENT), c: async () => reply });
    expect(await forwardWrite(peers, Date.now, ['b', 'c'], write)).toEqual({ context: 'ctx-from-c' });
    expect(asked).toEqual(['b', 'c']);
    expect(peers.isDown('b')).toBe(true);
  });

  it('answers that the write may have been applied, and sends it nowhere else, when the connection dropped mid-call', async () => {
    // A coordinator killed mid-write: it may have sent its version to replicas. Coordinating the
    // write again elsewhere would make a second version of it.
    const { peers, asked } = directory({ b: unavailable({}), c: async () => reply });
    const error = await expectTesseraError(
      forwardWrite(peers, Date.now, ['b', 'c'], write),
      'PEER_UNAVAILABLE',
    );
    expect(error.message).toMatch(/may have been applied/);
    expect(asked).toEqual(['b']);
  });

  it('answers undefined (coordinate here) only when no node could be reached', async () => {
    const { peers } = directory({ b: unavailable(NOT_SENT), c: unavailable(NOT_SENT) });
    expect(await forwardWrite(peers, Date.now, ['b', 'c'], write)).toBeUndefined();
  });
});
