import { describe, expect, it } from 'vitest';
import { CompactionPriority, LEVEL0_FILES_BEHIND, LEVEL0_FILES_CAUGHT_UP } from './compaction-priority.js';

function priority(files: number[]): { calls: [number, number][]; run: () => number[] } {
  const calls: [number, number][] = [];
  const p = new CompactionPriority(42, 10, {
    setPriority: (threadId, nice) => calls.push([threadId, nice]),
    level0Files: () => files.shift(),
  });
  return {
    calls,
    run: () => {
      const seen: number[] = [];
      while (files.length > 0) {
        p.check();
        seen.push(p.niceNow);
      }
      return seen;
    },
  };
}

describe('CompactionPriority', () => {
  it('gives the thread its full priority while level 0 piles up, and lowers it again once caught up', () => {
    const behind = LEVEL0_FILES_BEHIND;
    const caughtUp = LEVEL0_FILES_CAUGHT_UP;
    const { calls, run } = priority([
      0,
      4,
      behind - 1,
      behind,
      behind + 3,
      caughtUp + 1,
      caughtUp,
      1,
      behind,
    ]);
    expect(run()).toEqual([10, 10, 10, 0, 0, 0, 10, 10, 0]);
    // Only changes reach setpriority.
    expect(calls).toEqual([
      [42, 0],
      [42, 10],
      [42, 0],
    ]);
  });

  it('keeps the priority as it is when the file count cannot be read or the thread is gone', () => {
    const p = new CompactionPriority(42, 10, {
      setPriority: () => {
        throw new Error('ESRCH');
      },
      level0Files: () => LEVEL0_FILES_BEHIND,
    });
    p.check();
    expect(p.niceNow).toBe(10);
    const unread = new CompactionPriority(42, 10, { setPriority: () => {}, level0Files: () => undefined });
    unread.check();
    expect(unread.niceNow).toBe(10);
  });
});
