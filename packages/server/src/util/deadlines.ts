/**
 * Request deadlines in one sweeper: a timer per request costs a timer-list insert and removal
 * each, and thousands of them per second; one interval that wakes every `sweepMs` while anything
 * waits checks them all at once. Deadlines fire up to `sweepMs` late, never early.
 */
export const SWEEP_MS_DEFAULT = 5;

interface Entry {
  readonly deadlineMs: number;
  readonly onExpire: () => void;
}

export class Deadlines {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sweepMs = SWEEP_MS_DEFAULT,
  ) {}

  /** Calls `onExpire` once `timeoutMs` passed, unless the returned cancel function ran first. */
  add(timeoutMs: number, onExpire: () => void): () => void {
    const entry: Entry = { deadlineMs: this.now() + timeoutMs, onExpire };
    this.entries.add(entry);
    this.timer ??= setInterval(() => this.sweep(), this.sweepMs);
    return () => {
      this.entries.delete(entry);
      this.stopIfIdle();
    };
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const entry of this.entries) {
      if (entry.deadlineMs > now) continue;
      this.entries.delete(entry);
      entry.onExpire();
    }
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.entries.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
