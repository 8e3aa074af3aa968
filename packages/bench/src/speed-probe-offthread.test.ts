import { describe, expect, it } from 'vitest';
import { speedProbeMsOffThread } from './speed-probe.js';

// The worker is the built module (pnpm test builds first): a worker thread runs JavaScript, not this file's TypeScript.
const BUILT_WORKER = new URL('../dist/speed-probe-worker.js', import.meta.url);

describe('speedProbeMsOffThread', () => {
  it('times the fixed load on a worker thread while this thread keeps running', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const ms = await speedProbeMsOffThread(BUILT_WORKER);
      expect(ms).toBeGreaterThan(5);
      // This thread's timers fired during the probe: it did not run here.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it('rejects when the worker cannot start', async () => {
    await expect(speedProbeMsOffThread(new URL('./no-such-worker.js', import.meta.url))).rejects.toThrow();
  });
});
