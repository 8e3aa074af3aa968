import { describe, expect, it } from 'vitest';
import { wakeProbe } from './wake-probe.js';

describe('wakeProbe', () => {
  it('times the same work back to back and after a sleep, in CPU µs per piece', () => {
    const probe = wakeProbe();
    expect(probe.busyUs).toBeGreaterThan(0);
    expect(probe.afterIdleUs).toBeGreaterThan(0);
    // CPU time, not wall time: the sleeps themselves (1 ms each) are not in it.
    expect(probe.afterIdleUs).toBeLessThan(1_000);
  });
});
