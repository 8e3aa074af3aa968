/**
 * A per-key async mutex: tasks for one key run one at a time in call order, tasks for different
 * keys run in parallel. A task always starts asynchronously (a microtask after `run`, or after
 * the task before it settled), never inside the `run` call that queued it. The table holds only
 * keys with work in flight: a held key's entry is the queue of tasks waiting for it.
 *
 * A task may be queued with a `group` (change-queue.ts: the changes that will run together):
 * until that task starts, and while no other task is queued after it, `openGroup` answers it, so
 * that later changes join it. One table serves both, so an uncontended write touches its key's
 * entry four times (a lookup to join a group; a lookup and an insert to take the lock; a delete to
 * free it) rather than eight (util/key-table.ts: no lookup hashes or internalizes the key string).
 *
 * Every write of every replica passes here, so the lock is built from callbacks, not promise
 * chains: taking a free key costs one promise (the caller's) and one microtask.
 */
import { murmur3Text } from '@tessera/core';
import { KeyTable } from '../util/key-table.js';

/** A key's hash for the lock, for callers that have none of their own (a replica store gives its key's ring position). */
export function lockHash(key: string): number {
  return murmur3Text(key);
}

type Start = () => void;

interface Holder<G> {
  /** Tasks waiting for the key, in call order; undefined until one waits. */
  waiting: Start[] | undefined;
  /** The group of the last task queued, until it starts (or another task is queued after it). */
  group: G | undefined;
}

export class KeyLock<G = never> {
  private readonly held = new KeyTable<Holder<G>>();

  /** Keys with a task running or queued. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Runs `task` once every earlier task for `key` has finished; its result or error is passed on.
   * With `group`, `openGroup(key)` answers it until the task starts or another is queued after it.
   * `hash` is the key's 32-bit hash, the same at every call for one key (`lockHash`, or the caller's own).
   */
  run<T>(key: string, hash: number, task: () => Promise<T>, group?: G): Promise<T> {
    return this.queue(key, hash, task, group, false);
  }

  /**
   * Runs `task` right after the key's running task, before every task already waiting: for the
   * running task to finish its own work in a second turn (change-queue.ts: the changes of a group
   * past CHANGES_PER_WRITE_MAX go before a lock taken after they were submitted). It leaves the
   * open group as it is. With no task running or queued, it is `run`.
   */
  runNext<T>(key: string, hash: number, task: () => Promise<T>): Promise<T> {
    return this.queue(key, hash, task, undefined, true);
  }

  private queue<T>(
    key: string,
    hash: number,
    task: () => Promise<T>,
    group: G | undefined,
    next: boolean,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let holder = this.held.get(key, hash);
      const start = (): void => {
        const h = holder!;
        if (h.group === group) h.group = undefined;
        let result: Promise<T>;
        try {
          // A native promise passes as it is (no allocation); anything else a task returns settles too.
          result = Promise.resolve(task());
        } catch (err) {
          result = Promise.reject(err);
        }
        result.then(
          (value) => {
            this.release(key, hash, h);
            resolve(value);
          },
          (err: unknown) => {
            this.release(key, hash, h);
            reject(err);
          },
        );
      };
      if (holder === undefined) {
        holder = { waiting: undefined, group };
        this.held.set(key, hash, holder);
        queueMicrotask(start);
      } else if (next) {
        holder.waiting ??= [];
        holder.waiting.unshift(start);
      } else {
        holder.waiting ??= [];
        holder.waiting.push(start);
        holder.group = group;
      }
    });
  }

  /** The group of the key's last queued task, while that task has not started; else undefined. */
  openGroup(key: string, hash: number): G | undefined {
    return this.held.get(key, hash)?.group;
  }

  /** Tasks queued from now on never join the key's open group (see `openGroup`). */
  closeGroup(key: string, hash: number): void {
    const holder = this.held.get(key, hash);
    if (holder !== undefined) holder.group = undefined;
  }

  /** The key's task settled: the next waiting one starts (a microtask later), or the key is free. */
  private release(key: string, hash: number, holder: Holder<G>): void {
    const next = holder.waiting?.shift();
    if (next === undefined) this.held.delete(key, hash);
    else queueMicrotask(next);
  }
}
