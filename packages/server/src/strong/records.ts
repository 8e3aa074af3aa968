/**
 * Acceptor records of strong keys on this node, in the engine's `meta` namespace under
 * `s/<partition>/<key>` so that a partition's records can be paged in key order. Every change is
 * made under the key's lock and written before the acceptor answers (fsync when the node's
 * durability asks for it), so a kill -9 never makes an acceptor forget a promise it gave.
 */
import { type AcceptorRecord, decodeAcceptorRecord, type KeyRecord, partitionOf } from '@tessera/core';
import type { StorageEngine } from '../storage/engine.js';
import { KeyLock, lockHash } from '../storage/key-lock.js';

const encoder = new TextEncoder();
const PREFIX = 's/';

function partitionPrefix(partition: number): string {
  return `${PREFIX}${String(partition).padStart(6, '0')}/`;
}

export class AcceptorRecords {
  private readonly lock = new KeyLock();

  constructor(
    private readonly engine: StorageEngine,
    private readonly partitionCount: number,
    private readonly sync: boolean,
  ) {}

  private storageKey(key: string): string {
    return `${partitionPrefix(partitionOf(this.partitionCount, key))}${key}`;
  }

  async read(key: string): Promise<AcceptorRecord | undefined> {
    const bytes = await this.engine.get('meta', this.storageKey(key));
    return bytes === undefined ? undefined : decodeAcceptorRecord(bytes);
  }

  /**
   * Runs `change` on the key's record under its lock; writes the record it returns (when it returns one) before
   * resolving with its result.
   */
  async update<T>(
    key: string,
    change: (record: AcceptorRecord) => { record?: AcceptorRecord; result: T },
  ): Promise<T> {
    return this.lock.run(key, lockHash(key), async () => {
      const { record, result } = change((await this.read(key)) ?? {});
      if (record !== undefined) await this.write(key, record);
      return result;
    });
  }

  private write(key: string, record: AcceptorRecord): Promise<void> {
    const value = encoder.encode(JSON.stringify(record));
    return this.engine.batch([{ type: 'put', ns: 'meta', key: this.storageKey(key), value }], {
      sync: this.sync,
    });
  }

  /** Up to `keysMax` records of a partition after `afterKey`, each read under its key's lock. */
  async page(
    partition: number,
    afterKey: string | undefined,
    keysMax: number,
  ): Promise<{ records: KeyRecord[]; done: boolean }> {
    const prefix = partitionPrefix(partition);
    const gte = afterKey === undefined ? prefix : `${prefix}${afterKey}\u0000`;
    const keys: string[] = [];
    for await (const [stored] of this.engine.iterate('meta', {
      gte,
      lt: `${prefix}\uffff`,
      limit: keysMax + 1,
    })) {
      keys.push(stored.slice(prefix.length));
    }
    const done = keys.length <= keysMax;
    const records: KeyRecord[] = [];
    for (const key of keys.slice(0, keysMax)) {
      const record = await this.lock.run(key, lockHash(key), () => this.read(key));
      if (record !== undefined) records.push({ key, record });
    }
    return { records, done };
  }

  /** Deletes the key's record if `final` says so of it, under the key's lock; true if deleted. */
  async forget(key: string, final: (record: AcceptorRecord) => boolean): Promise<boolean> {
    return this.lock.run(key, lockHash(key), async () => {
      const record = await this.read(key);
      if (record === undefined || !final(record)) return false;
      await this.engine.batch([{ type: 'del', ns: 'meta', key: this.storageKey(key) }], { sync: this.sync });
      return true;
    });
  }

  /** Adopts `record` for `key`, merged with what this node holds (a new owner's pull). */
  async adopt(key: string, merge: (mine: AcceptorRecord | undefined) => AcceptorRecord): Promise<void> {
    await this.lock.run(key, lockHash(key), async () => this.write(key, merge(await this.read(key))));
  }

  /** Every record of the partitions this node holds, for the recovery sweep, one page at a time. */
  async *scan(
    afterStored?: string,
    keysMax = 256,
  ): AsyncGenerator<{ stored: string; key: string; record: AcceptorRecord }> {
    const gte = afterStored === undefined ? PREFIX : `${afterStored}\u0000`;
    for await (const [stored, bytes] of this.engine.iterate('meta', {
      gte,
      lt: `${PREFIX}\uffff`,
      limit: keysMax,
    })) {
      const key = stored.slice(partitionPrefix(0).length);
      yield { stored, key, record: decodeAcceptorRecord(bytes) };
    }
  }
}
