/**
 * Group commit: atomic batches submitted during one event-loop tick, or while the previous group
 * is being written, go to the engine as one batch, so a burst of writes costs one LevelDB write
 * (and one fsync) instead of one each. Each submission stays atomic: a group is one atomic batch.
 * A group that fails is retried one submission at a time, so one bad batch fails alone.
 *
 * Nagle-style hold (`holdMs`, config `commitHoldMs`, off by default): while writes keep coming (the
 * last group was written less than two hold periods ago), a group of fewer than
 * GROUP_HOLD_SUBMISSIONS submissions waits up to `holdMs` for more before it goes. A LevelDB batch
 * costs about 30 µs of CPU in its trip through the thread pool whatever it holds (and one fsync
 * when a mode syncs), and at half load a node wrote about one put per batch (docs/benchmarks.md,
 * "Issue 18, fifth round"). A write to an idle engine never waits.
 */
import type { BatchOp, StorageEngine } from './engine.js';

/** Operations in one group, at most; the rest waits for the next group. */
export const GROUP_OPS_MAX = 4_096;
/** A held group goes at once when it reaches this many submissions. */
export const GROUP_HOLD_SUBMISSIONS = 8;

export interface GroupCommitOptions {
  /** How long a small group may wait for more while writes keep coming; 0 never waits. */
  readonly holdMs?: number;
  /** Milliseconds on a monotonic clock; default performance.now. */
  readonly now?: () => number;
}

interface Submission {
  readonly ops: readonly BatchOp[];
  readonly sync: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  private queue: Submission[] = [];
  private writing = false;
  private scheduled = false;
  private holdTimer: NodeJS.Timeout | undefined;
  private lastGroupEndMs = Number.NEGATIVE_INFINITY;
  private readonly holdMs: number;
  private readonly now: () => number;

  constructor(
    private readonly engine: StorageEngine,
    options: GroupCommitOptions = {},
  ) {
    this.holdMs = options.holdMs ?? 0;
    this.now = options.now ?? (() => performance.now());
  }

  /** Resolves once `ops` are written (synced to disk first if `sync`, or if another in the group asked). */
  write(ops: readonly BatchOp[], sync: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, sync, resolve, reject });
      if (this.holdTimer !== undefined && this.queue.length >= GROUP_HOLD_SUBMISSIONS) {
        // Full enough: the held group leaves at the end of this tick.
        clearTimeout(this.holdTimer);
        this.holdTimer = undefined;
        setImmediate(() => this.release());
      } else this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    if (this.holds()) this.holdTimer = setTimeout(() => this.release(), this.holdMs);
    else setImmediate(() => this.release());
  }

  /** A small group while writes keep coming waits for more; a write to an idle engine never does. */
  private holds(): boolean {
    return (
      this.holdMs > 0 &&
      this.queue.length < GROUP_HOLD_SUBMISSIONS &&
      this.now() - this.lastGroupEndMs < 2 * this.holdMs
    );
  }

  private release(): void {
    this.holdTimer = undefined;
    this.scheduled = false;
    void this.writeGroup();
  }

  private async writeGroup(): Promise<void> {
    this.writing = true;
    const group = this.takeGroup();
    try {
      await this.commit(group);
    } finally {
      this.writing = false;
      this.lastGroupEndMs = this.now();
      this.schedule();
    }
  }

  private takeGroup(): Submission[] {
    let ops = 0;
    let count = 0;
    while (
      count < this.queue.length &&
      (count === 0 || ops + this.queue[count]!.ops.length <= GROUP_OPS_MAX)
    ) {
      ops += this.queue[count]!.ops.length;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private async commit(group: Submission[]): Promise<void> {
    // One loop, not `some` and `flatMap`: every group of every write passes here.
    let sync = false;
    const ops: BatchOp[] = [];
    for (const s of group) {
      if (s.sync) sync = true;
      for (const op of s.ops) ops.push(op);
    }
    try {
      await this.engine.batch(ops, { sync });
      for (const s of group) s.resolve();
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      for (const s of group) {
        await this.engine.batch(s.ops, { sync: s.sync }).then(s.resolve, s.reject);
      }
    }
  }
}
