/**
 * Replies to one pipe message are split so that no message passes the caller's message limit:
 * many reads of large states made in one tick all succeed, and a state too large for a message of
 * its own fails its read alone, not the pipe and every call on it.
 */
import { encodeState, type KeyState } from '@tessera/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { expectTesseraError, FakePeer, peerServerForFile, TIMEOUT_MS } from '../../test/grpc-kit.js';
import { STATE_BYTES_MAX, VALUE_BYTES_MAX_LIMIT } from '../config.js';
import { createPeerClient } from './grpc-client.js';
import { startPeerServer } from './grpc-server.js';

const silent = pino({ level: 'silent' });
const peer = new FakePeer();
const server = peerServerForFile(peer);

describe('pipe replies', () => {
  it('answers reads made in one tick whose states together pass the message limit', async () => {
    const big = new Uint8Array(1024 * 1024).fill(3);
    peer.states.set('big', big);
    const client = createPeerClient(`127.0.0.1:${server.port()}`);
    try {
      const reads = await Promise.all(Array.from({ length: 12 }, () => client.read('big', TIMEOUT_MS)));
      // Compared as buffers: a deep equality of 1 MiB arrays takes seconds.
      expect(reads.every((state) => state !== undefined && Buffer.from(state).equals(big))).toBe(true);
    } finally {
      client.close();
    }
  });

  it('fails a read whose state alone passes the message limit with VALUE_TOO_LARGE, and serves the other calls on the pipe', async () => {
    const messageBytesMax = 256 * 1024;
    const small = await startPeerServer(peer, {
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      messageBytesMax,
    });
    peer.states.set('too-big', new Uint8Array(300 * 1024));
    peer.states.set('fits', new Uint8Array([4, 2]));
    const client = createPeerClient(`127.0.0.1:${small.port}`, { messageBytesMax });
    try {
      const [tooBig, fits] = await Promise.allSettled([
        client.read('too-big', TIMEOUT_MS),
        client.read('fits', TIMEOUT_MS),
      ]);
      expect(fits).toEqual({ status: 'fulfilled', value: new Uint8Array([4, 2]) });
      expect(tooBig.status).toBe('rejected');
      const error = await expectTesseraError(client.read('too-big', TIMEOUT_MS), 'VALUE_TOO_LARGE');
      expect(error.message).toMatch(/lower valueBytesMax/);
      expect(await client.read('fits', TIMEOUT_MS)).toEqual(new Uint8Array([4, 2]));
    } finally {
      client.close();
      await small.close();
    }
  });

  it('carries a value of the largest valueBytesMax, with a 1024-byte key and a clock of 256 long actors, both ways', async () => {
    const actor = (i: number): string => `${'a'.repeat(60)}${String(i).padStart(4, '0')}~999999`;
    const state: KeyState = {
      vv: Array.from({ length: 256 }, (_, i) => ({ node: actor(i), counter: 2 ** 40, timestampMs: 2 ** 42 })),
      siblings: [
        {
          dot: { node: actor(0), counter: 2 ** 40 },
          value: new Uint8Array(VALUE_BYTES_MAX_LIMIT).fill(0x61),
          lastModifiedMs: 2 ** 42,
        },
      ],
    };
    const bytes = encodeState(state);
    const key = 'é'.repeat(512);
    const client = createPeerClient(`127.0.0.1:${server.port()}`);
    try {
      await client.replicate(key, bytes, TIMEOUT_MS);
      const back = await client.read(key, TIMEOUT_MS);
      expect(back !== undefined && Buffer.from(back).equals(bytes)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('carries a state of STATE_BYTES_MAX with the longest key and a hint, both ways', async () => {
    const state = new Uint8Array(STATE_BYTES_MAX).fill(0x62);
    const key = 'k'.repeat(1024);
    const client = createPeerClient(`127.0.0.1:${server.port()}`);
    try {
      await client.replicate(key, state, TIMEOUT_MS, 'h'.repeat(64));
      const back = await client.read(key, TIMEOUT_MS);
      expect(back !== undefined && Buffer.from(back).equals(state)).toBe(true);
    } finally {
      client.close();
    }
  });
});
