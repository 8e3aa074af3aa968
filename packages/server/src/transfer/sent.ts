/**
 * The sending side's view of partition transfers: keys this node served per partition to receivers
 * pulling from it, and how far into the partition (by the last key's Merkle bucket, as the
 * receiver estimates it). Shown in `/v1/status` next to the receiver's own numbers, so that a
 * source reports progress too. Bounded: one record per partition, cleared once no change is pending.
 */
import { MERKLE_BUCKETS } from '@tessera/core';
import { locate } from '../storage/stored-keys.js';

export interface SentProgress {
  readonly keysSent: number;
  /** 0..1; 1 once a page reached the end of the partition. */
  readonly progress: number;
}

export class TransfersSent {
  private readonly rows = new Map<number, SentProgress>();

  /** A chunk of `keys` keys of `partition` went out; `lastKey` is its last, `end` if the partition ended. */
  record(
    partition: number,
    partitionCount: number,
    keys: number,
    lastKey: string | undefined,
    end: boolean,
  ): void {
    const before = this.rows.get(partition) ?? { keysSent: 0, progress: 0 };
    const reached =
      end || lastKey === undefined
        ? end
          ? 1
          : before.progress
        : (locate(partitionCount, lastKey).bucket + 1) / MERKLE_BUCKETS;
    this.rows.set(partition, {
      keysSent: before.keysSent + keys,
      progress: Math.max(before.progress, reached),
    });
  }

  get(partition: number): SentProgress | undefined {
    return this.rows.get(partition);
  }

  /** Forgets everything (no change pending any more). */
  clear(): void {
    this.rows.clear();
  }
}
