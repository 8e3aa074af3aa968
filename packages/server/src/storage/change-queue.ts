/**
 * Changes to one key coalesced into one write. A hot key (a shopping cart many tabs update, the
 * head of a zipfian workload) used to take one engine write per change, one after the other under
 * its lock: each waited for every write queued before it. Now the changes that queue while the
 * key is busy run together, each on the state the one before it left, exactly as one after the
 * other, and the key is written once for all of them; each change still gets its own result, and
 * none is answered before the write that holds it is committed.
 */
import { type KeyState, sameState } from '@tessera/core';
import type { KeyLock } from './key-lock.js';

/** Changes written together at most; the rest wait for the next write. */
export const CHANGES_PER_WRITE_MAX = 256;

export interface QueuedChange<H> {
  readonly fn: (stored: KeyState) => KeyState;
  /** What the store needs to know of this change (its hooks, whether it syncs). */
  readonly how: H;
  resolve(state: KeyState): void;
  reject(error: unknown): void;
}

/** One change's new state, accepted into the group. */
export interface Accepted<H> {
  readonly change: QueuedChange<H>;
  /** The state this change leaves (the state it found, when it changed nothing). */
  readonly next: KeyState;
}

/** `S`: what `run` is told of the key (by default the key itself), given once per change. */
export class ChangeQueue<H, S = string> {
  /**
   * `run` applies one group under the key's lock (`lockKey`): it must settle every change of the
   * group, and never throw. The lock holds each key's open group (key-lock.ts `openGroup`).
   */
  constructor(
    private readonly lock: KeyLock<QueuedChange<H>[]>,
    private readonly run: (subject: S, group: QueuedChange<H>[]) => Promise<void>,
  ) {}

  /** Queues `fn` for the key (`subject`, locked as `lockKey`); resolves with the state it left, once written. */
  submit(
    subject: S,
    lockKey: string,
    lockHash: number,
    fn: (stored: KeyState) => KeyState,
    how: H,
  ): Promise<KeyState> {
    return new Promise((resolve, reject) => {
      const change = { fn, how, resolve, reject };
      const open = this.lock.openGroup(lockKey, lockHash);
      if (open !== undefined) open.push(change);
      else this.schedule(subject, lockKey, lockHash, [change]);
    });
  }

  /**
   * Changes submitted from now on wait for whatever takes the key's lock next (a drop, a
   * collection): they never join a group queued before it. Call it just before taking the lock.
   */
  close(lockKey: string, lockHash: number): void {
    this.lock.closeGroup(lockKey, lockHash);
  }

  /**
   * Queues the group's write on the key's lock; the group takes changes until it starts. A group
   * past CHANGES_PER_WRITE_MAX writes its first changes and queues the rest right after itself.
   */
  private schedule(subject: S, lockKey: string, lockHash: number, queue: QueuedChange<H>[]): void {
    const task = (): Promise<void> => {
      // Changes submitted from now on form the next group, written after this one.
      const group = queue.splice(0, CHANGES_PER_WRITE_MAX);
      // The rest was submitted before anything queued behind this group: it goes next, before it.
      if (queue.length > 0) void this.lock.runNext(lockKey, lockHash, task);
      return this.run(subject, group);
    };
    void this.lock.run(lockKey, lockHash, task, queue);
  }
}

/**
 * Runs each change of `group` on the state the one before it left, starting from `stored`; a
 * change whose `check` or `fn` throws is rejected at once and leaves the state as it found it.
 * Answers the state the group leaves and the changes accepted, in order.
 */
export function applyGroup<H>(
  stored: KeyState,
  group: readonly QueuedChange<H>[],
  check: (before: KeyState, next: KeyState, change: QueuedChange<H>) => void,
): { final: KeyState; accepted: Accepted<H>[] } {
  let current = stored;
  const accepted: Accepted<H>[] = [];
  for (const change of group) {
    try {
      const next = change.fn(current);
      if (sameState(next, current) && next.deletedAtMs === current.deletedAtMs) {
        accepted.push({ change, next: current });
        continue;
      }
      check(current, next, change);
      current = next;
      accepted.push({ change, next });
    } catch (err) {
      change.reject(err);
    }
  }
  return { final: current, accepted };
}
