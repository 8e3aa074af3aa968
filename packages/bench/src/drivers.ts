/** Drivers turn a workload into operations against Tessera nodes or the bare fastify server. */

import type { Rng } from '@tessera/core';
import type { Pool } from 'undici';
import { getKey, putKey, request } from './http.js';
import type { KeyChooser } from './keys.js';
import type { Outcome } from './recorder.js';
import type { Driver, PendingOp } from './runner.js';
import { putBody } from './values.js';
import { chooseOp, type Workload } from './workloads.js';

export interface LoadTarget {
  /** Worker i sends to pools[i % pools.length], unless `route` is set. */
  readonly pools: readonly Pool[];
  /** Client-driven routing: the pool for a key (its first replica's node). */
  readonly route?: (key: string) => Pool;
  /** Prepended to every key, unique per run, so runs against the same nodes do not mix. */
  readonly prefix: string;
  /** Serialized values to rotate through. */
  readonly values: readonly string[];
  readonly rng: Rng;
}

/** Shared across phases so fresh keys stay fresh. */
export interface KeyCounter {
  next: number;
}

export function loadedKey(prefix: string, index: number): string {
  return `${prefix}k${index}`;
}

function poolFor(target: LoadTarget, worker: number, key: string): Pool {
  return target.route?.(key) ?? target.pools[worker % target.pools.length]!;
}

function valueFor(target: LoadTarget): string {
  return target.values[Math.floor(target.rng() * target.values.length)]!;
}

/** The load phase ends when every key is written; this only bounds it. */
export const LOAD_PHASE_MAX_MS = 10 * 60_000;

/** Inserts keys 0..count-1 once (the YCSB load phase), then runs dry. */
export function loadDriver(target: LoadTarget, count: number): Driver {
  let nextIndex = 0;
  return {
    next(worker) {
      if (nextIndex >= count) return undefined;
      const key = loadedKey(target.prefix, nextIndex++);
      const pool = poolFor(target, worker, key);
      return { kind: 'insert', run: () => putKey(pool, key, putBody(valueFor(target))) };
    },
  };
}

export function workloadDriver(
  workload: Workload,
  target: LoadTarget,
  keys: KeyChooser,
  fresh: KeyCounter,
): Driver {
  return {
    next(worker): PendingOp {
      const kind = chooseOp(workload, target.rng());
      if (kind === 'insert') {
        const key = `${target.prefix}w${fresh.next++}`;
        const pool = poolFor(target, worker, key);
        return { kind, run: () => putKey(pool, key, putBody(valueFor(target))) };
      }
      const key = loadedKey(target.prefix, keys.next());
      const pool = poolFor(target, worker, key);
      if (kind === 'read') return { kind, run: () => getKey(pool, key) };
      return { kind, run: () => readModifyWrite(pool, key, valueFor(target)) };
    },
  };
}

/** GET, then PUT a new value with the read's context: it replaces exactly the siblings read. */
export async function readModifyWrite(pool: Pool, key: string, value: string): Promise<Outcome> {
  const read = await getKey(pool, key);
  if (read.error !== undefined && read.found !== false) return read;
  const write = await putKey(pool, key, putBody(value, read.context));
  if (read.siblings === undefined) return write;
  return { ...write, siblings: read.siblings };
}

export const BARE_PATH = '/bare';

export function bareDriver(pool: Pool, method: 'GET' | 'POST', body: string): Driver {
  const op: PendingOp =
    method === 'GET'
      ? { kind: 'get', run: () => request(pool, 'GET', BARE_PATH) }
      : { kind: 'post', run: () => request(pool, 'POST', BARE_PATH, body) };
  return { next: () => op };
}
