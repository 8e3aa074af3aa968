/**
 * A per-key async mutex: tasks for one key run one at a time in call order, tasks for different
 * keys run in parallel. A task always starts asynchronously (a microtask after `run`, or after
 * the task before it settled), never inside the `run` call that queued it. The table holds only
 * keys with work in flight: a held key's entry is the queue of tasks waiting for it.
 *
 * Every write of every replica passes here, so the lock is built from callbacks, not promise
 * chains: taking a free key costs one promise (the caller's) and one microtask.
 */
import { KeyTable } from '../util/key-table.js';

type Start = () => void;

/** A held key nobody waits for (most are): shared, never changed. */
const NOBODY_WAITING: readonly Start[] = Object.freeze([]);

export class KeyLock {
  /** Per held key, the tasks waiting for it, in call order. */
  private readonly held = new KeyTable<readonly Start[]>();

  /** Keys with a task running or queued. */
  get size(): number {
    return this.held.size;
  }

  /** Runs `task` once every earlier task for `key` has finished; its result or error is passed on. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        let result: Promise<T>;
        try {
          result = task();
        } catch (err) {
          result = Promise.reject(err);
        }
        result.then(
          (value) => {
            this.release(key);
            resolve(value);
          },
          (err: unknown) => {
            this.release(key);
            reject(err);
          },
        );
      };
      const waiting = this.held.get(key);
      if (waiting === undefined) {
        this.held.set(key, NOBODY_WAITING);
        queueMicrotask(start);
      } else if (waiting === NOBODY_WAITING) this.held.set(key, [start]);
      else (waiting as Start[]).push(start);
    });
  }

  /** The key's task settled: the next waiting one starts (a microtask later), or the key is free. */
  private release(key: string): void {
    const waiting = this.held.get(key);
    if (waiting === undefined || waiting.length === 0) {
      this.held.delete(key);
      return;
    }
    const next = (waiting as Start[]).shift()!;
    if (waiting.length === 0) this.held.set(key, NOBODY_WAITING);
    queueMicrotask(next);
  }
}
