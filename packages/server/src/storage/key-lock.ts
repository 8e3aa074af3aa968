/**
 * A per-key async mutex: tasks for one key run one at a time in call order, tasks for different
 * keys run in parallel. Each key's entry is a promise chain that is removed as soon as the key
 * is idle, so the map holds only keys with work in flight.
 */
import { KeyTable } from '../util/key-table.js';

export class KeyLock {
  /** The promise that settles when the last queued task for the key is done; never rejects. */
  private readonly tails = new KeyTable<Promise<void>>();

  /** Keys with a task running or queued. */
  get size(): number {
    return this.tails.size;
  }

  /** Runs `task` once every earlier task for `key` has finished; its result or error is passed on. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous === undefined ? done : previous.then(() => done);
    this.tails.set(key, tail);
    try {
      await previous;
      return await task();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
