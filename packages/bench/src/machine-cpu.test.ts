import { describe, expect, it } from 'vitest';
import { machineCpuBetween, parseCpuTicks, readCpuTicks } from './machine-cpu.js';

const CORES = 'cpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n';
const STAT_START = `cpu  53074 248 12680 244180 517 0 2955 961 0 0\n${CORES}`;
const STAT_END = `cpu  53773 248 12771 244341 517 0 2983 979 0 0\n${CORES}`;

describe('machine CPU', () => {
  it("reads the summed cpu line, idle with I/O wait, and the host's steal", () => {
    expect(parseCpuTicks(STAT_START)).toEqual({
      total: 53074 + 248 + 12680 + 244180 + 517 + 0 + 2955 + 961,
      idle: 244180 + 517,
      steal: 961,
      cores: 2,
    });
    expect(parseCpuTicks('cpu0 1 2 3\n')).toBeUndefined();
    expect(parseCpuTicks('cpu  1 2 3\n')).toBeUndefined();
    expect(parseCpuTicks('cpu  1 2 3 4 5 6 7 8 0 0\n')).toBeUndefined(); // no cores listed
  });

  it('gives idle and stolen cores between two readings', () => {
    const start = parseCpuTicks(STAT_START);
    const end = parseCpuTicks(STAT_END);
    if (start === undefined || end === undefined) throw new Error('unparsed');
    const machine = machineCpuBetween(start, end);
    // 997 ticks in all: 161 idle, 18 stolen, of two cores.
    expect(machine?.idleCores).toBeCloseTo((161 / 997) * 2, 9);
    expect(machine?.stealCores).toBeCloseTo((18 / 997) * 2, 9);
    expect(machineCpuBetween(end, end)).toBeUndefined();
    expect(machineCpuBetween(start, { ...end, cores: 4 })).toBeUndefined(); // a core came online
  });

  it.runIf(process.platform === 'linux')("reads this machine's /proc/stat", async () => {
    const ticks = await readCpuTicks();
    expect(ticks?.total).toBeGreaterThan(0);
    expect(ticks?.idle).toBeLessThanOrEqual(ticks?.total ?? 0);
    expect(ticks?.cores).toBeGreaterThan(0);
  });
});
