import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ProcessSampler } from './proc-sampler.js';
import { type PhaseContext, runPhase } from './runner.js';

const ctx: PhaseContext = {
  progress: { update: () => {}, done: () => {} },
  processes: new ProcessSampler(),
  signal: new AbortController().signal,
};

describe('runPhase at a fixed rate (open loop)', () => {
  it('starts operations on schedule whatever the worker count, and counts latency from the slot', async () => {
    const result = await runPhase(
      {
        head: { name: 'paced', system: 'tessera', target: 'spread' },
        workers: 8,
        warmupMs: 0,
        durationMs: 500,
        ratePerSec: 100,
        windowMs: 250,
        driver: { next: () => ({ kind: 'op', run: async () => ({}) }) },
      },
      ctx,
    );
    // 100/s for 0.5 s: about 50 operations, not the thousands 8 free workers would do.
    expect(result.ops).toBeGreaterThanOrEqual(40);
    expect(result.ops).toBeLessThanOrEqual(51);
    expect(result.windows?.map((w) => w.startS)).toEqual([0, 0.25]);
  });

  it('charges the wait for a free worker to the operation', async () => {
    // One worker, 20 ms operations, a slot every 10 ms: each waits longer than the last.
    const result = await runPhase(
      {
        head: { name: 'overloaded', system: 'tessera', target: 'spread' },
        workers: 1,
        warmupMs: 0,
        durationMs: 300,
        ratePerSec: 100,
        driver: { next: () => ({ kind: 'op', run: () => sleep(20).then(() => ({})) }) },
      },
      ctx,
    );
    expect(result.latency.maxMs).toBeGreaterThan(100);
    expect(result.latency.p50Ms).toBeGreaterThan(20);
  });
});
