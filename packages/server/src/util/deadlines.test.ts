import { describe, expect, it } from 'vitest';
import { oldSpaceGrowthBytes } from '../../test/promotion-kit.js';
import { Deadlines } from './deadlines.js';

describe('Deadlines', () => {
  it('fires expired deadlines (never early), skips cancelled ones, and stops its timer when idle', async () => {
    const deadlines = new Deadlines(Date.now, 2);
    const fired: string[] = [];
    const started = Date.now();
    const firedAt = new Map<string, number>();
    const add = (name: string, ms: number) =>
      deadlines.add(ms, () => {
        fired.push(name);
        firedAt.set(name, Date.now() - started);
      });
    add('short', 10);
    const cancel = add('cancelled', 10);
    add('long', 40);
    cancel();
    const deadline = Date.now() + 2_000;
    while (deadlines.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(fired).toEqual(['short', 'long']);
    expect(firedAt.get('short')).toBeGreaterThanOrEqual(10);
    expect(firedAt.get('long')).toBeGreaterThanOrEqual(40);
    expect(deadlines.size).toBe(0);
  });
});

describe('Deadlines and the garbage collector', () => {
  it('lets a cancelled deadline go at once: 20,000 finished requests do not reach the old generation', async () => {
    // Each "request" holds about 1 KB through its expiry callback, and at most 30 wait at a time,
    // as on a coordinator. A Set of entries kept them all (10.7 MB here); now about 1.5 MB.
    const deadlines = new Deadlines(Date.now, 60_000);
    const waiting: (() => void)[] = [];
    const grownBytes = await oldSpaceGrowthBytes(200, (round) => {
      for (let i = 0; i < 100; i++) {
        const request = new Array<number>(128).fill(round);
        waiting.push(deadlines.add(60_000, () => request.length));
        if (waiting.length > 30) waiting.shift()?.();
      }
    });
    for (const cancel of waiting) cancel();
    expect(deadlines.size).toBe(0);
    expect(grownBytes).toBeLessThan(5_000_000);
  });
});
