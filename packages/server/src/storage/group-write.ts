/**
 * One group of changes to a key, written under its lock (ReplicaStore, change-queue.ts): each
 * change runs on the state the one before it left, the group's final state goes to the engine in
 * one atomic batch with its tombstone-index entry, and then the Merkle tree learns of it. A
 * change's `beforeWrite` (a coordinator's fan-out) runs once its version is checked and encoded,
 * before the engine write.
 */
import { EMPTY_STATE, encodeState, type KeyState } from '@tessera/core';
import { type Accepted, applyGroup, type QueuedChange } from './change-queue.js';
import type { BatchOp } from './engine.js';
import type { PartitionTrees } from './partition-trees.js';
import type { ChangeOptions, ReplicaStoreOptions } from './replica-store-options.js';
import { type Location, tombstoneKey } from './stored-keys.js';
import { checkSiblings, checkStateBytes, tombstoneIndexOp } from './stored-state.js';
import type { StoredStates } from './stored-states.js';

/** What a group's write needs of its store. */
export interface GroupWriteDeps {
  readonly trees: PartitionTrees;
  readonly states: StoredStates;
  readonly options: Pick<ReplicaStoreOptions, 'siblingsMax' | 'stateBytesMax'>;
  readonly now: () => number;
  /** Writes `ops`, which leave the key's state `bytes`, keeping the cache and key filter in step. */
  writeData(key: string, bytes: Uint8Array | undefined, ops: BatchOp[], sync?: boolean): Promise<void>;
}

/** Settles every change of `group`; never throws. */
export async function writeGroup(
  deps: GroupWriteDeps,
  key: string,
  at: Location,
  group: QueuedChange<ChangeOptions>[],
): Promise<void> {
  const { trees, states, options } = deps;
  // Memory answers most writes at once (no scan of the bucket, a cached or certainly absent key):
  // each await skipped is a promise and a microtask less per write, on every replica.
  const release = trees.enterNow(at.partition, at.bucket) ?? (await trees.enter(at.partition, at.bucket));
  let accepted: Accepted<ChangeOptions>[] = [];
  /** Changes whose `beforeWrite` ran: told synchronously, under the lock, if they are not stored. */
  const sent: ChangeOptions[] = [];
  try {
    const entry = states.loadNow(key, at.dataKey) ?? (await states.load(key, at.dataKey, false));
    const bytes = entry.bytes;
    const stored = bytes === undefined ? EMPTY_STATE : states.decoded(key, entry);
    let last: { state: KeyState; encoded: Uint8Array } | undefined;
    const applied = applyGroup(stored, group, (before, next, { how }) => {
      if (how.limitSiblings) checkSiblings(key, before, next, options.siblingsMax);
      const encoded = how.received?.state === next ? how.received.bytes : encodeState(next);
      if (how.limitSiblings) {
        const beforeBytes = last?.encoded.length ?? bytes?.length ?? 0;
        checkStateBytes(key, beforeBytes, encoded.length, options.stateBytesMax);
      }
      beforeWrite(how, next, encoded);
      sent.push(how);
      last = { state: next, encoded };
    });
    accepted = applied.accepted;
    const { final } = applied;
    if (final !== stored) {
      const encoded = last?.state === final ? last.encoded : encodeState(final);
      const ops: BatchOp[] = [{ type: 'put', ns: 'data', key: at.dataKey, value: encoded }];
      const index = tombstoneIndexOp(tombstoneKey(at.partition, key), stored, final, deps.now);
      if (index !== undefined) ops.push(index);
      await deps.writeData(
        key,
        encoded,
        ops,
        accepted.some((a) => a.change.how.sync),
      );
      trees.changed(at.partition, at.bucket, key, bytes === undefined ? undefined : stored, final, {
        before: bytes?.length,
        after: encoded.length,
      });
    }
    for (const { change, next } of accepted) change.resolve(next);
  } catch (err) {
    // Nothing of the group was written (or whether it was is unknown): every change not yet
    // refused fails with the error.
    for (const how of sent) how.notStored?.(err);
    for (const change of accepted.length > 0 ? accepted.map((a) => a.change) : group) change.reject(err);
  } finally {
    release();
  }
}

/** Runs the change's `beforeWrite`; if it throws once it may have sent the version, the change is not stored. */
function beforeWrite(how: ChangeOptions, next: KeyState, encoded: Uint8Array): void {
  try {
    how.beforeWrite?.(next, encoded);
  } catch (err) {
    how.notStored?.(err);
    throw err;
  }
}
