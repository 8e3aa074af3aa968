import { TesseraError } from '@tessera/core';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { expectTesseraError, FakePeer, freePort, TIMEOUT_MS } from '../../test/grpc-kit.js';
import { createPeerClient } from './grpc-client.js';
import { startPeerServer } from './grpc-server.js';
import type { TransferEntry } from './peer-api.js';

describe('gRPC peer transport failures', () => {
  it('fails with PEER_UNAVAILABLE within the deadline when nobody listens', async () => {
    const port = await freePort();
    const client = createPeerClient(`127.0.0.1:${port}`);
    try {
      const started = Date.now();
      const error = await expectTesseraError(client.read('k', 1_000), 'PEER_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(error.details).toMatchObject({ peer: `127.0.0.1:${port}` });
    } finally {
      client.close();
    }
  });

  it('refuses a request above messageBytesMax with VALUE_TOO_LARGE, and keeps serving', async () => {
    const peer = new FakePeer();
    const server = await startPeerServer(peer, {
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
      messageBytesMax: 1024,
    });
    const client = createPeerClient(`127.0.0.1:${server.port}`);
    try {
      await expectTesseraError(client.replicate('k', new Uint8Array(4096), TIMEOUT_MS), 'VALUE_TOO_LARGE');
      expect(peer.calls).toEqual([]);
      await client.replicate('k', new Uint8Array(100).fill(1), TIMEOUT_MS);
      expect(peer.states.get('k')).toHaveLength(100);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('reopens the replication pipe after the peer restarts, and a call that cannot fit fails alone', async () => {
    const silent = pino({ level: 'silent' });
    const peer = new FakePeer();
    let server = await startPeerServer(peer, { host: '127.0.0.1', port: 0, logger: silent });
    const port = server.port;
    const client = createPeerClient(`127.0.0.1:${port}`, { messageBytesMax: 64 * 1024 });
    try {
      await client.replicate('a', new Uint8Array(10).fill(1), TIMEOUT_MS);
      // Many calls of one tick share one message; an oversized one is refused before it is sent.
      const batch = Array.from({ length: 200 }, (_, i) =>
        client.replicate(`k${i}`, new Uint8Array(100).fill(2), TIMEOUT_MS),
      );
      await expectTesseraError(
        client.replicate('big', new Uint8Array(128 * 1024), TIMEOUT_MS),
        'VALUE_TOO_LARGE',
      );
      await Promise.all(batch);
      expect(peer.states.size).toBe(201);
      await server.close();
      await expectTesseraError(client.read('a', TIMEOUT_MS), 'PEER_UNAVAILABLE');
      server = await startPeerServer(peer, { host: '127.0.0.1', port, logger: silent });
      const deadline = Date.now() + 5_000;
      for (;;) {
        try {
          expect(await client.read('a', TIMEOUT_MS)).toHaveLength(10);
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    } finally {
      client.close();
      await server.close();
    }
  });

  it('rejects startPeerServer when the port is taken', async () => {
    const silent = pino({ level: 'silent' });
    const first = await startPeerServer(new FakePeer(), { host: '127.0.0.1', port: 0, logger: silent });
    try {
      await expect(
        startPeerServer(new FakePeer(), { host: '127.0.0.1', port: first.port, logger: silent }),
      ).rejects.toThrow(/Cannot listen for peers on 127\.0\.0\.1:/);
    } finally {
      await first.close();
    }
  });

  it('fails a transfer page with the code the source chose, or PEER_UNAVAILABLE, and the channel serves on', async () => {
    const silent = pino({ level: 'silent' });
    const transfer = {
      // biome-ignore lint/correctness/useYield: a source that fails before its first chunk
      page: async function* (): AsyncIterable<TransferEntry[]> {
        throw new TesseraError('CLUSTER_MISMATCH', 'Partition 9 does not exist.');
      },
    };
    const server = await startPeerServer(new FakePeer(), {
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      transfer,
    });
    const client = createPeerClient(`127.0.0.1:${server.port}`);
    const nobody = createPeerClient(`127.0.0.1:${await freePort()}`);
    const page = { partition: 9, keysMax: 10 };
    const ignore = async (): Promise<void> => {};
    try {
      const error = await expectTesseraError(
        client.transferPage(page, TIMEOUT_MS, ignore),
        'CLUSTER_MISMATCH',
      );
      expect(error.details).toMatchObject({ rpc: 'TransferPartition' });
      expect(await client.read('k', TIMEOUT_MS)).toBeUndefined();
      await expectTesseraError(nobody.transferPage(page, TIMEOUT_MS, ignore), 'PEER_UNAVAILABLE');
    } finally {
      client.close();
      nobody.close();
      await server.close();
    }
  });
});
