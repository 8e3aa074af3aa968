import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../storage/memory-engine.js';
import { DotCounter } from './dot-counter.js';

async function engine(): Promise<MemoryEngine> {
  const e = new MemoryEngine();
  await e.open();
  return e;
}

describe('DotCounter', () => {
  it('never hands out a counter twice across restarts, even when the clock goes back', async () => {
    const e = await engine();
    const first = await DotCounter.load(e, 5_000);
    const a = [await first.take(), await first.take()];
    const second = await DotCounter.load(e, 1_000);
    const b = await second.take();
    expect(a[1]).toBeGreaterThan(a[0]!);
    expect(b).toBeGreaterThan(a[1]!);
  });

  it('starts above every counter of an earlier life when the data dir was lost', async () => {
    // The node's first life: writes at t=10 s, then its disk is replaced.
    const lost = await DotCounter.load(await engine(), 10_000);
    let last = 0;
    for (let i = 0; i < 1_000; i++) last = await lost.take();
    // Same node id, empty data dir, one second later: its new dots must not look already seen.
    const fresh = await DotCounter.load(await engine(), 11_000);
    expect(await fresh.take()).toBeGreaterThan(last);
  });
});
