/**
 * The sending side of a partition transfer (paper 4.9): one page of a partition's keys after a
 * cursor, read from the local replica store, cut into chunks that fit a gRPC message.
 */
import { encodeState, TesseraError } from '@tessera/core';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { TransferEntry, TransferPage } from '../transport/peer-api.js';
import type { TransferSource } from '../transport/transfer-stream.js';
import { TransfersSent } from './sent.js';

/** Bytes of states (and keys, at 3 bytes per UTF-16 unit) per chunk, well below the 4 MiB message limit. */
const CHUNK_BYTES_MAX = 1024 * 1024;
const CHUNK_KEYS_MAX = 64;

export class PartitionSource implements TransferSource {
  private store: ReplicaStore | undefined;
  /** What this node served, per partition (shown in /v1/status by the membership service). */
  readonly sent = new TransfersSent();

  /** The peer server starts before the store opens; until this call, transfers are refused. */
  ready(store: ReplicaStore): void {
    this.store = store;
  }

  async *page(request: TransferPage): AsyncIterable<TransferEntry[]> {
    const store = this.store;
    if (store === undefined)
      throw new TesseraError('NODE_NOT_READY', 'This node is still starting; retry shortly.');
    if (request.partition >= store.partitionCount) {
      throw new TesseraError(
        'CLUSTER_MISMATCH',
        `Partition ${request.partition} does not exist: this cluster has ${store.partitionCount} partitions.`,
        { partition: request.partition, partitionCount: store.partitionCount },
      );
    }
    const options =
      request.afterKey === undefined
        ? { limit: request.keysMax }
        : { limit: request.keysMax, afterKey: request.afterKey };
    let chunk: TransferEntry[] = [];
    let bytes = 0;
    let served = 0;
    const { partition } = request;
    const sent = (entries: readonly TransferEntry[], end: boolean): void =>
      this.sent.record(partition, store.partitionCount, entries.length, entries.at(-1)?.key, end);
    for await (const [key, state] of store.scanPartition(partition, options)) {
      const encoded = encodeState(state);
      const entryBytes = encoded.byteLength + 3 * key.length;
      // A state that would take the chunk past its budget starts the next one: a chunk holds at
      // most CHUNK_BYTES_MAX, or one state alone (up to STATE_BYTES_MAX, which one message carries).
      if (chunk.length > 0 && bytes + entryBytes > CHUNK_BYTES_MAX) {
        yield chunk;
        sent(chunk, false);
        chunk = [];
        bytes = 0;
      }
      chunk.push({ key, state: encoded });
      bytes += entryBytes;
      served++;
      if (chunk.length >= CHUNK_KEYS_MAX || bytes >= CHUNK_BYTES_MAX) {
        yield chunk;
        sent(chunk, false);
        chunk = [];
        bytes = 0;
      }
    }
    if (chunk.length > 0) yield chunk;
    // A page shorter than asked for is the partition's last.
    sent(chunk, served < request.keysMax);
  }
}
