import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LoopDelayProbe } from './loop-probe.js';

/** Waits until `cond` holds, at most `timeoutMs`. */
async function until(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!cond() && performance.now() < deadline) await sleep(5);
}

describe('LoopDelayProbe', () => {
  it("measures the harness's own event loop, so a late harness is told apart from a late node", async () => {
    const probe = new LoopDelayProbe();
    await probe.begin();
    let ticks = 0;
    const counter = setInterval(() => ticks++, 10);
    await until(() => ticks >= 5, 2_000);
    const blockedUntil = performance.now() + 120;
    while (performance.now() < blockedUntil) {
      // the harness is busy: its timers fire late
    }
    await until(() => ticks >= 10, 2_000);
    clearInterval(counter);
    const stats = (await probe.end()).bench;
    expect(stats).toBeDefined();
    expect(stats!.p999Ms).toBeGreaterThan(80);
    expect(stats!.samples).toBeGreaterThan(0);
  });

  it('reports nothing for the harness outside a measured stretch', async () => {
    expect(await new LoopDelayProbe().end()).toEqual({});
  });
});
