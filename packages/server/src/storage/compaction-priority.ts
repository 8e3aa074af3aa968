/**
 * LevelDB flushes and compacts on one background thread per process. Every replica writes the
 * same data, so all of them flush and compact at about the same moment: a few tens of ms of CPU
 * each, every few seconds, which on shared cores delays every node's event loop, and with it
 * every request in flight (docs/benchmarks.md, "Issue 18, third round"). A higher nice value for
 * that one thread lets the event loops and the thread pool's reads and writes go first; the
 * thread still gets every idle cycle, and gets its full priority back while level 0 piles up
 * (`CompactionPriority`).
 *
 * The thread has no name and classic-level does not expose it, so it is found as the thread that
 * appears while the engine opens and first schedules background work (LevelDB starts the thread
 * then). Linux only (threads are listed in /proc and reniced with setpriority by thread id);
 * elsewhere, or when exactly one new thread cannot be told apart, nothing is changed.
 */
import { readdir } from 'node:fs/promises';
import { setPriority } from 'node:os';

/** The nice value given to LevelDB's background thread unless configured (0 leaves it alone). */
export const COMPACTION_NICE_DEFAULT = 10;

/**
 * Level-0 files at which the thread gets its full priority back: LevelDB compacts level 0 from 4
 * files and slows every write by 1 ms from 8, so a starved compaction would cost more than it
 * saves.
 */
export const LEVEL0_FILES_BEHIND = 6;
/** Level-0 files at or below which the thread is lowered again. */
export const LEVEL0_FILES_CAUGHT_UP = 2;

const TASKS_DIR = '/proc/self/task';

export type Lowered =
  | { readonly lowered: true; readonly threadId: number; readonly nice: number }
  | { readonly lowered: false; readonly why: string };

/**
 * This process's thread ids, or undefined where they cannot be listed. Listing them runs on the
 * thread pool, which therefore exists afterwards: its threads are never taken for LevelDB's.
 */
export async function threadIds(): Promise<ReadonlySet<number> | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    return new Set((await readdir(TASKS_DIR)).map(Number));
  } catch {
    return undefined;
  }
}

export interface PriorityDeps {
  readonly setPriority: (threadId: number, nice: number) => void;
  /** LevelDB's level-0 file count now; undefined when it cannot be read. */
  readonly level0Files: () => number | undefined;
}

/**
 * Keeps the thread low while LevelDB keeps up and gives it its full priority while level 0 piles
 * up (hysteresis between LEVEL0_FILES_CAUGHT_UP and LEVEL0_FILES_BEHIND); `check` runs on a timer.
 */
export class CompactionPriority {
  private current: number;

  constructor(
    readonly threadId: number,
    private readonly nice: number,
    private readonly deps: PriorityDeps,
  ) {
    this.current = nice;
  }

  /** The thread's nice value as last set. */
  get niceNow(): number {
    return this.current;
  }

  check(): void {
    const files = this.deps.level0Files();
    if (files === undefined) return;
    const wanted =
      files >= LEVEL0_FILES_BEHIND ? 0 : files <= LEVEL0_FILES_CAUGHT_UP ? this.nice : this.current;
    if (wanted === this.current) return;
    try {
      this.deps.setPriority(this.threadId, wanted);
      this.current = wanted;
    } catch {
      // The thread is gone (the engine closed): nothing to adjust.
    }
  }
}

/**
 * After `startBackgroundWork` (which makes LevelDB schedule work, starting its thread if it has
 * not yet), gives the one thread that appeared since `before` the nice value `nice`.
 */
export async function lowerCompactionPriority(
  before: ReadonlySet<number> | undefined,
  nice: number,
  startBackgroundWork: () => Promise<void>,
): Promise<Lowered> {
  if (before === undefined) return { lowered: false, why: 'threads cannot be listed on this platform' };
  await startBackgroundWork();
  const after = await threadIds();
  const fresh = [...(after ?? [])].filter((id) => !before.has(id));
  if (fresh.length === 0)
    return { lowered: false, why: 'LevelDB started its thread earlier in this process' };
  if (fresh.length > 1) {
    return { lowered: false, why: `${fresh.length} threads appeared while LevelDB opened, not one` };
  }
  const threadId = fresh[0] as number;
  try {
    setPriority(threadId, nice);
    return { lowered: true, threadId, nice };
  } catch (err) {
    return { lowered: false, why: `setpriority failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
