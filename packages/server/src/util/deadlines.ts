/**
 * Request deadlines in one sweeper: a timer per request costs a timer-list insert and removal
 * each, and thousands of them per second; one interval that wakes every `sweepMs` while anything
 * waits checks them all at once. Deadlines fire up to `sweepMs` late, never early.
 *
 * The entries live in an array that each sweep rebuilds, and a cancelled entry lets go of its
 * callback at once. Not a Set: a Set whose entries come and go thousands of times a second is
 * rehashed again and again, and V8 links each replaced table to the next and keeps its entries
 * in it; once one table of the chain has reached the old generation, the chain keeps every entry
 * added since (and the whole request each callback holds) alive until the next full collection.
 * That promoted about 1 MB of finished requests per scavenge on a coordinator at 9,700 gets/s, and
 * a full collection every 2 seconds (docs/benchmarks.md, "Issue 18, third round").
 */
export const SWEEP_MS_DEFAULT = 5;

interface Entry {
  readonly deadlineMs: number;
  /** Undefined once the entry fired or was cancelled. */
  onExpire: (() => void) | undefined;
}

export class Deadlines {
  private entries: Entry[] = [];
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sweepMs = SWEEP_MS_DEFAULT,
  ) {}

  /** Calls `onExpire` once `timeoutMs` passed, unless the returned cancel function ran first. */
  add(timeoutMs: number, onExpire: () => void): () => void {
    const entry: Entry = { deadlineMs: this.now() + timeoutMs, onExpire };
    this.entries.push(entry);
    this.waiting++;
    this.timer ??= setInterval(() => this.sweep(), this.sweepMs);
    return () => {
      if (entry.onExpire === undefined) return;
      entry.onExpire = undefined;
      this.waiting--;
    };
  }

  /** Deadlines still waiting (neither fired nor cancelled). */
  get size(): number {
    return this.waiting;
  }

  private sweep(): void {
    const now = this.now();
    const kept: Entry[] = [];
    const expired: (() => void)[] = [];
    for (const entry of this.entries) {
      const { onExpire } = entry;
      if (onExpire === undefined) continue;
      if (entry.deadlineMs > now) {
        kept.push(entry);
        continue;
      }
      entry.onExpire = undefined;
      this.waiting--;
      expired.push(onExpire);
    }
    this.entries = kept;
    for (const onExpire of expired) onExpire();
    // An expiry may have added entries; stop only when none waits.
    if (this.waiting === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.entries = [];
    }
  }
}
