/**
 * The operations of `pnpm bench transactions` and the keys they use. Every kind has keys of its
 * own, so the measured operations never wait for each other: transactions put fresh keys (distinct
 * within and across transactions), conditional puts update a set of written strong keys
 * round-robin with the version they last saw, and reads read a set written before.
 */
import type { Rng } from '@tessera/core';
import type { Pool } from 'undici';
import { getKey, putKey } from '../http.js';
import type { Driver, PendingOp } from '../runner.js';
import { putBody } from '../values.js';
import type { MixKind } from './model.js';
import { putActionsBody, strongPut, transact, transactGet, transactGetBody } from './requests.js';

export interface TxnKeySpace {
  /** The strong namespace (`<namespace>/…` keys are strong). */
  readonly namespace: string;
  /** Unique to the run, so runs against the same nodes never share keys. */
  readonly prefix: string;
  readonly readKeys: number;
  readonly condKeys: number;
  /** Serialized values to rotate through. */
  readonly values: readonly string[];
  readonly rng: Rng;
}

export class TxnWorkload {
  private freshStrong = 0;
  private freshPlain = 0;
  private condNext = 0;
  /** The version each conditional-put key had when last seen. */
  private readonly versions = new Map<string, string>();

  constructor(private readonly space: TxnKeySpace) {}

  readKey(i: number): string {
    return `${this.space.namespace}/${this.space.prefix}r${i}`;
  }

  condKey(i: number): string {
    return `${this.space.namespace}/${this.space.prefix}c${i}`;
  }

  plainKey(i: number): string {
    return `${this.space.prefix}p${i}`;
  }

  /** A strong key never used before. */
  nextFreshStrong(): string {
    return `${this.space.namespace}/${this.space.prefix}t${this.freshStrong++}`;
  }

  /** `count` distinct keys of the read set, uniformly (a partial Fisher-Yates shuffle). */
  distinctReadKeys(count: number): string[] {
    const n = this.space.readKeys;
    if (count > n) throw new RangeError(`${count} distinct keys asked of a read set of ${n}`);
    const order = Array.from({ length: n }, (_, i) => i);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(this.space.rng() * (n - i));
      const picked = order[j]!;
      order[j] = order[i]!;
      keys.push(this.readKey(picked));
    }
    return keys;
  }

  /** Writes the read set (strong and plain) and the conditional-put set once, then runs dry. */
  loadDriver(pool: Pool): Driver {
    const { readKeys, condKeys } = this.space;
    let next = 0;
    return {
      next: () => {
        const i = next++;
        const body = putBody(this.value());
        if (i < readKeys) return { kind: 'strong put', run: () => strongPut(pool, this.readKey(i), body) };
        if (i < 2 * readKeys) {
          const key = this.plainKey(i - readKeys);
          return { kind: 'plain put', run: () => putKey(pool, key, body) };
        }
        if (i < 2 * readKeys + condKeys) {
          const key = this.condKey(i - 2 * readKeys);
          return { kind: 'strong put', run: () => this.conditionalPut(pool, key, body) };
        }
        return undefined;
      },
    };
  }

  /** Figure 6: put-only transactions of `items` fresh keys. */
  sweepWriteDriver(pool: Pool, items: number): Driver {
    return { next: () => this.transaction(pool, items, `transaction ${items}`) };
  }

  /** Figure 5: transactGet of `items` distinct keys of the read set. */
  sweepReadDriver(pool: Pool, items: number): Driver {
    return { next: () => this.snapshot(pool, items, `transactGet ${items}`) };
  }

  /** Figures 7 and 8: each operation of a kind drawn uniformly from `kinds`. */
  mixDriver(pool: Pool, kinds: readonly MixKind[]): Driver {
    return { next: () => this.op(pool, kinds[Math.floor(this.space.rng() * kinds.length)]!) };
  }

  /** Every operation of one kind (the throughput phases). */
  kindDriver(pool: Pool, kind: MixKind): Driver {
    return { next: () => this.op(pool, kind) };
  }

  op(pool: Pool, kind: MixKind): PendingOp {
    switch (kind) {
      case 'plain get': {
        const key = this.plainKey(Math.floor(this.space.rng() * this.space.readKeys));
        return { kind, run: () => getKey(pool, key) };
      }
      case 'strong get': {
        const key = this.readKey(Math.floor(this.space.rng() * this.space.readKeys));
        return { kind, run: () => getKey(pool, key) };
      }
      case 'transactGet 1':
        return this.snapshot(pool, 1, kind);
      case 'plain put': {
        const key = `${this.space.prefix}w${this.freshPlain++}`;
        const body = putBody(this.value());
        return { kind, run: () => putKey(pool, key, body) };
      }
      case 'strong put': {
        const key = this.condKey(this.condNext++ % this.space.condKeys);
        const body = putBody(this.value());
        return { kind, run: () => this.conditionalPut(pool, key, body) };
      }
      case 'transaction 1':
        return this.transaction(pool, 1, kind);
    }
  }

  private transaction(pool: Pool, items: number, kind: string): PendingOp {
    const keys = Array.from({ length: items }, () => this.nextFreshStrong());
    const body = putActionsBody(keys, this.value());
    return { kind, run: () => transact(pool, body) };
  }

  private snapshot(pool: Pool, items: number, kind: string): PendingOp {
    const body = transactGetBody(this.distinctReadKeys(items));
    return { kind, run: () => transactGet(pool, body) };
  }

  /** PUT with If-Match the version last seen (none before the first write); keeps the version it answers. */
  private async conditionalPut(pool: Pool, key: string, body: string) {
    const outcome = await strongPut(pool, key, body, this.versions.get(key));
    if (outcome.version !== undefined) this.versions.set(key, outcome.version);
    return outcome;
  }

  private value(): string {
    const { values, rng } = this.space;
    return values[Math.floor(rng() * values.length)]!;
  }
}
