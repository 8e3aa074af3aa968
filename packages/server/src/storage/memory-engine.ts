/**
 * An engine that keeps everything in memory: for tests and the in-process cluster simulation.
 * Data outlives close(): closing and reopening the same instance is a node restart with its disk
 * intact. Values are copied in and out, so no caller can change stored bytes. A batch is applied
 * in one synchronous step, so it is atomic, and later ops in it win.
 */
import { BaseEngine, type CheckedRange, NAMESPACES } from './base-engine.js';
import type { BatchOp, Namespace, SnapshotEntry } from './engine.js';
import { SortedTable } from './sorted-table.js';

export class MemoryEngine extends BaseEngine {
  readonly kind = 'memory';
  private readonly tables = new Map<Namespace, SortedTable>(NAMESPACES.map((ns) => [ns, new SortedTable()]));

  protected async _open(): Promise<void> {}

  protected async _close(): Promise<void> {}

  protected async _get(ns: Namespace, key: string): Promise<Uint8Array | undefined> {
    const value = this.table(ns).get(key);
    return value === undefined ? undefined : value.slice();
  }

  protected async _batch(ops: readonly BatchOp[]): Promise<void> {
    // Copy every value before touching the tables: nothing below can throw, so all ops apply.
    const copies = ops.map((op) => (op.type === 'put' ? op.value.slice() : undefined));
    ops.forEach((op, i) => {
      const value = copies[i];
      if (value === undefined) this.table(op.ns).delete(op.key);
      else this.table(op.ns).set(op.key, value);
    });
  }

  protected async *_iterate(ns: Namespace, range: CheckedRange): AsyncIterable<[string, Uint8Array]> {
    // A snapshot taken when iteration starts, like a LevelDB iterator's.
    const entries = this.table(ns).range(range.gte, range.lt, range.limit);
    for (const [key, value] of entries) yield [key, value.slice()];
  }

  protected async *_snapshot(): AsyncIterable<SnapshotEntry> {
    // Every table copied in one synchronous step: the point in time is the call.
    const all = NAMESPACES.map(
      (ns) => [ns, this.table(ns).range(undefined, undefined, Number.POSITIVE_INFINITY)] as const,
    );
    for (const [ns, entries] of all) for (const [key, value] of entries) yield [ns, key, value.slice()];
  }

  private table(ns: Namespace): SortedTable {
    return this.tables.get(ns)!;
  }
}
