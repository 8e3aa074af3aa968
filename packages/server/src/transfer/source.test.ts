/**
 * A transfer source cuts a page into chunks that each fit one peer message, whatever the sizes of
 * the states in it: a large state after a run of smaller ones starts a chunk of its own.
 */
import { applyWrite, bucketOf, EMPTY_CONTEXT, partitionOf, utf8 } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { STATE_BYTES_MAX } from '../config.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { messageRoomBytes } from '../transport/pipe-client.js';
import { MESSAGE_BYTES_MAX_DEFAULT } from '../transport/service.js';
import { PartitionSource } from './source.js';

const Q = 4;

describe('a transfer source', () => {
  it('never puts more into one chunk than one peer message carries, a largest state included', async () => {
    const engine = new MemoryEngine();
    await engine.open();
    const store = new ReplicaStore(engine, {
      partitionCount: Q,
      sync: false,
      stateBytesMax: STATE_BYTES_MAX,
    });
    await store.open();
    const partition = 1;
    // Keys in the order a scan of the partition meets them: bucket by bucket, in key order.
    const keys = Array.from({ length: 400 }, (_, i) => `key-${i}`)
      .filter((key) => partitionOf(Q, key) === partition)
      .slice(0, 14)
      .sort((a, b) => bucketOf(a) - bucketOf(b) || (a < b ? -1 : 1));
    // Five states of 200 KiB (just under the 1 MiB a chunk aims at), then the largest a write allows.
    const sizes = keys.map((_, i) => (i === 5 || i === 11 ? STATE_BYTES_MAX - 64 * 1024 : 200 * 1024));
    for (const [i, key] of keys.entries()) {
      await store.update(key, (s) =>
        applyWrite(s, {
          actor: 'n0',
          context: EMPTY_CONTEXT,
          value: utf8(`"${'v'.repeat(sizes[i]!)}"`),
          nowMs: 1,
          vvEntriesMax: 10,
        }),
      );
    }
    const source = new PartitionSource();
    source.ready(store);
    const chunkBytes: number[] = [];
    let sent = 0;
    for await (const chunk of source.page({ partition, keysMax: 1_000 })) {
      chunkBytes.push(chunk.reduce((total, e) => total + e.state.byteLength + 3 * e.key.length, 0));
      sent += chunk.length;
    }
    expect(sent).toBe(keys.length);
    expect(Math.max(...chunkBytes)).toBeLessThanOrEqual(messageRoomBytes(MESSAGE_BYTES_MAX_DEFAULT));
  });
});
