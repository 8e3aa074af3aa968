/**
 * The whole machine's CPU over a phase, from the first line of /proc/stat (Linux): how many cores
 * sat idle, and how many the host took from this VM (steal). Beside each process's wait for a
 * core (proc-sampler.ts) it tells a machine too small for its processes (little idle, much
 * waiting) from a host that takes the cores away (steal), and from bursts (idle and waiting both).
 */
import { readFile } from 'node:fs/promises';

export interface CpuTicks {
  /** Every tick counted, of all cores. */
  readonly total: number;
  /** Idle and waiting for I/O. */
  readonly idle: number;
  /** Taken by the hypervisor for other guests. */
  readonly steal: number;
  /** Cores counted (the `cpuN` lines). */
  readonly cores: number;
}

export interface MachineCpu {
  /** Cores idle on average over the phase. */
  readonly idleCores: number;
  /** Cores the host took on average over the phase. */
  readonly stealCores: number;
}

/** The summed `cpu` line of /proc/stat; undefined when it is not there. */
export function parseCpuTicks(stat: string): CpuTicks | undefined {
  const line = /^cpu\s+([\d\s]+)$/m.exec(stat)?.[1];
  if (line === undefined) return undefined;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are in user and nice)
  const values = line.trim().split(/\s+/).slice(0, 8).map(Number);
  if (values.length < 8 || values.some((v) => !Number.isFinite(v))) return undefined;
  const [, , , idle = 0, iowait = 0, , , steal = 0] = values;
  const cores = stat.match(/^cpu\d+\s/gm)?.length ?? 0;
  if (cores === 0) return undefined;
  return { total: values.reduce((a, b) => a + b, 0), idle: idle + iowait, steal, cores };
}

/** Idle and stolen cores between two readings. */
export function machineCpuBetween(start: CpuTicks, end: CpuTicks): MachineCpu | undefined {
  const total = end.total - start.total;
  const { cores } = end;
  if (total <= 0 || cores !== start.cores) return undefined;
  return {
    idleCores: ((end.idle - start.idle) / total) * cores,
    stealCores: ((end.steal - start.steal) / total) * cores,
  };
}

export async function readCpuTicks(): Promise<CpuTicks | undefined> {
  try {
    return parseCpuTicks(await readFile('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}
