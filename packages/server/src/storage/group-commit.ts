/**
 * Group commit: atomic batches submitted during one event-loop tick, or while the previous group
 * is being written, go to the engine as one batch, so a burst of writes costs one LevelDB write
 * (and one fsync) instead of one each. Each submission stays atomic: a group is one atomic batch.
 * A group that fails is retried one submission at a time, so one bad batch fails alone.
 */
import type { BatchOp, StorageEngine } from './engine.js';

/** Operations in one group, at most; the rest waits for the next group. */
export const GROUP_OPS_MAX = 4_096;

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

  constructor(private readonly engine: StorageEngine) {}

  /** Resolves once `ops` are written (synced to disk first if `sync`, or if another in the group asked). */
  write(ops: readonly BatchOp[], sync: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, sync, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.writeGroup();
    });
  }

  private async writeGroup(): Promise<void> {
    this.writing = true;
    const group = this.takeGroup();
    try {
      await this.commit(group);
    } finally {
      this.writing = false;
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
    const sync = group.some((s) => s.sync);
    try {
      await this.engine.batch(
        group.flatMap((s) => s.ops),
        { sync },
      );
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
