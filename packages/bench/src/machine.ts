/** The machine a run measured on, with its load average at the start and end of the run. */
import { cpus, loadavg, totalmem } from 'node:os';
import type { MachineInfo } from './results.js';
import type { WakeProbe } from './wake-probe.js';

export function machineInfo(loadAverageStart: readonly number[], wakeProbe?: WakeProbe): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.versions.node,
    platform: `${process.platform} ${process.arch}`,
    loadAverageStart,
    loadAverageEnd: loadavg(),
    ...(wakeProbe === undefined ? {} : { wakeProbe }),
  };
}
