import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ProcessSampler } from './proc-sampler.js';
import { type PhaseContext, runPhase, schedule } from './runner.js';

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
    // Every operation after the first few is late (over 10 ms), one burst: their starts are 10 ms apart.
    expect(result.late?.count).toBeGreaterThan(result.ops - 3);
    expect(result.late?.burstCount).toBe(1);
    expect(result.late?.largest[0]?.maxMs).toBeCloseTo(result.latency.maxMs, 0);
  });

  it('reports no late operations for a phase that runs until its driver is dry (the bulk load)', async () => {
    let left = 20;
    const result = await runPhase(
      {
        head: { name: 'load', system: 'tessera', target: 'one' },
        workers: 1,
        warmupMs: 0,
        durationMs: 5_000,
        untilDone: true,
        driver: {
          next: () => (left-- > 0 ? { kind: 'insert', run: () => sleep(12).then(() => ({})) } : undefined),
        },
      },
      ctx,
    );
    expect(result.ops).toBe(20);
    expect(result.latency.p50Ms).toBeGreaterThan(10);
    expect(result.late).toBeUndefined();
  });

  it("does not carry the warmup's backlog into the measured time (a cold start is slow)", async () => {
    // One worker; 100 ms operations while the warmup's first 290 ms (a cold cluster), 5 ms after.
    // When the measured time begins the schedule is about 37 operations behind: catching up at
    // 100/s over the rate would make the measured operations up to a third of a second late.
    const startedMs = performance.now();
    const result = await runPhase(
      {
        head: { name: 'cold', system: 'tessera', target: 'spread' },
        workers: 1,
        warmupMs: 400,
        durationMs: 300,
        ratePerSec: 100,
        driver: {
          next: () => ({
            kind: 'op',
            run: () => sleep(performance.now() - startedMs < 290 ? 100 : 5).then(() => ({})),
          }),
        },
      },
      ctx,
    );
    // The measured time offers its own 100/s from its start: about 30 operations, none of them late.
    expect(result.ops).toBeGreaterThanOrEqual(25);
    expect(result.ops).toBeLessThanOrEqual(31);
    expect(result.latency.maxMs).toBeLessThan(50);
  });
});

describe('schedule (open loop)', () => {
  it('drops the warmup slots not started when the measured time begins, and keeps a later backlog', () => {
    const next = schedule(0, 400, 100);
    expect([next(0), next(0), next(5)]).toEqual([0, 10, 20]);
    expect(next(450)).toBe(400); // slots 30..390 were never started: the measured time starts afresh
    expect([next(450), next(451)]).toEqual([410, 420]);
    expect(next(2_000)).toBe(430); // behind in the measured time: that counts
    const onTime = schedule(0, 20, 100);
    expect([onTime(0), onTime(0), onTime(15), onTime(25)]).toEqual([0, 10, 20, 30]); // on time: nothing dropped
  });
});
