/**
 * The data layout version of a data dir, and the one-time move from layout 1 (`<partition>/<key>`)
 * to layout 2 (`<partition>:<bucket>/<key>` plus the tombstone index; see stored-keys.ts). The
 * move runs partition by partition in batches, each batch atomic, so a crash in the middle leaves
 * every key in exactly one of the two places, and the next open carries on. The marker is
 * written last.
 */
import { decodeState, isTombstone, TesseraError } from '@tessera/core';
import type { BatchOp, StorageEngine } from './engine.js';
import {
  dataKey,
  encodeTimeMs,
  legacyPartitionRange,
  legacyUserKeyOf,
  locate,
  tombstoneKey,
} from './stored-keys.js';

export const LAYOUT_KEY = 'data-layout';
export const LAYOUT_VERSION = 2;
/** Keys moved per batch. */
const MIGRATE_BATCH_KEYS = 512;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Brings the data dir to LAYOUT_VERSION; `nowMs` dates the tombstones found on the way. */
export async function migrateLayout(
  engine: StorageEngine,
  partitionCount: number,
  nowMs: number,
  sync: boolean,
): Promise<void> {
  const marker = await engine.get('meta', LAYOUT_KEY);
  const version = marker === undefined ? 1 : Number(decoder.decode(marker));
  if (version === LAYOUT_VERSION) return;
  if (version !== 1) {
    throw new TesseraError(
      'STORAGE_FAILURE',
      `This data dir has data layout ${decoder.decode(marker)}; this Tessera reads layout ${LAYOUT_VERSION}. Run the Tessera version that wrote it, or use another --data-dir.`,
    );
  }
  for (let partition = 0; partition < partitionCount; partition++) {
    while (await moveBatch(engine, partitionCount, partition, nowMs, sync));
  }
  await engine.batch(
    [{ type: 'put', ns: 'meta', key: LAYOUT_KEY, value: encoder.encode(String(LAYOUT_VERSION)) }],
    {
      sync: true,
    },
  );
}

/** Moves up to MIGRATE_BATCH_KEYS layout 1 keys of a partition; false once none are left. */
async function moveBatch(
  engine: StorageEngine,
  partitionCount: number,
  partition: number,
  nowMs: number,
  sync: boolean,
): Promise<boolean> {
  const ops: BatchOp[] = [];
  const range = { ...legacyPartitionRange(partition), limit: MIGRATE_BATCH_KEYS };
  for await (const [stored, value] of engine.iterate('data', range)) {
    const key = legacyUserKeyOf(stored);
    const at = locate(partitionCount, key);
    ops.push({ type: 'del', ns: 'data', key: stored });
    ops.push({ type: 'put', ns: 'data', key: dataKey(at.partition, at.bucket, key), value });
    if (isLegacyTombstone(value)) {
      ops.push({ type: 'put', ns: 'meta', key: tombstoneKey(at.partition, key), value: encodeTimeMs(nowMs) });
    }
  }
  if (ops.length === 0) return false;
  await engine.batch(ops, { sync });
  return true;
}

function isLegacyTombstone(bytes: Uint8Array): boolean {
  try {
    return isTombstone(decodeState(bytes));
  } catch {
    return false; // a damaged state moves as it is; reading it reports the damage.
  }
}
