import { describe, expect, it } from 'vitest';
import { BUSY_CORES_MAX, busyCores, busyMachineMessage, parseCpuTicks } from './quiet-machine.js';

const stat = (user: number, idle: number) =>
  `cpu  ${user} 0 100 ${idle} 50 0 10 0 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 5\n`;

describe('quiet machine check', () => {
  it('reads busy and total ticks from /proc/stat, idle and iowait counting as idle', () => {
    expect(parseCpuTicks(stat(1000, 5000))).toEqual({ busy: 1110, total: 6160 });
    expect(parseCpuTicks('intr 5\n')).toBeUndefined();
    expect(parseCpuTicks('cpu  a b c d\n')).toBeUndefined();
  });

  it('turns two readings into busy cores, and says how to go on when that is too many', () => {
    const before = parseCpuTicks(stat(1000, 5000))!;
    // 2 cores for 1 s = 200 ticks: 60 busy, 140 idle -> 0.6 cores busy.
    const after = parseCpuTicks(stat(1060, 5140))!;
    expect(busyCores(before, after, 2)).toBeCloseTo(0.6, 5);
    expect(busyCores(before, before, 2)).toBe(0);
    expect(0.6).toBeGreaterThan(BUSY_CORES_MAX);
    expect(busyMachineMessage(0.6)).toMatch(/0\.60 cores.*--force/);
  });
});
