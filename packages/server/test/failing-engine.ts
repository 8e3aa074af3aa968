/** An engine for tests whose batches fail with STORAGE_FAILURE whenever `fails(ops)` says so. */
import { TesseraError } from '@tessera/core';
import type { BatchOp, StorageEngine, WriteOptions } from '../src/storage/engine.js';

export function failingBatches(
  engine: StorageEngine,
  fails: (ops: readonly BatchOp[]) => boolean,
): StorageEngine {
  return {
    kind: engine.kind,
    open: () => engine.open(),
    close: () => engine.close(),
    get: (ns, key) => engine.get(ns, key),
    iterate: (ns, range) => engine.iterate(ns, range),
    batch: async (ops: readonly BatchOp[], options?: WriteOptions) => {
      if (fails(ops)) throw new TesseraError('STORAGE_FAILURE', 'simulated: the disk refused the write');
      await engine.batch(ops, options);
    },
  };
}
