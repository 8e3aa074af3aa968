import { describe, expect, it } from 'vitest';
import { AdmissionController } from './admission.js';

function controller() {
  let now = 0;
  const gate = new AdmissionController({
    rateMaxPerSec: 100,
    rateMinPerSec: 5,
    latencyTargetMs: 50,
    windowMs: 1000,
    now: () => now,
  });
  return { gate, advance: (ms: number) => (now += ms) };
}

function drain(gate: AdmissionController): number {
  let n = 0;
  while (gate.tryAcquire(1, 'handoff')) n++;
  return n;
}

describe('AdmissionController', () => {
  it('lets background work run at the maximum rate while the foreground is fast, and counts what it defers', () => {
    const { gate, advance } = controller();
    expect(drain(gate)).toBe(100);
    advance(500);
    expect(drain(gate)).toBe(50);
    const stats = gate.stats();
    expect(stats.ran.handoff).toBe(150);
    expect(stats.deferred.handoff).toBe(2);
  });

  it('halves the rate when foreground p99 exceeds the target, down to the minimum, and recovers', () => {
    const { gate, advance } = controller();
    for (let w = 0; w < 6; w++) {
      for (let i = 0; i < 200; i++) gate.recordForeground(i < 190 ? 5 : 200);
      advance(1000);
      gate.tryAcquire(0, 'anti-entropy');
    }
    expect(gate.stats().ratePerSec).toBe(5);
    expect(gate.stats().foregroundP99Ms).toBeGreaterThan(50);
    drain(gate);
    advance(1000);
    for (let i = 0; i < 100; i++) gate.recordForeground(2);
    advance(1000);
    expect(gate.stats().ratePerSec).toBe(15);
  });
});
