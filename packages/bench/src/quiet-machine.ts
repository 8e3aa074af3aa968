/**
 * Benchmarks need the machine to themselves: before a run, the harness measures how many cores
 * other work keeps busy (from /proc/stat over a second) and refuses to start above a bound unless
 * told `--force`. A load average lags by a minute and missed an idle leftover cluster twice.
 */
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from './options.js';

/** Cores kept busy by other work above which a run refuses to start (without --force). */
export const BUSY_CORES_MAX = 0.25;
const SAMPLE_MS = 1_000;

/** The machine-wide CPU counters of /proc/stat's first line, in clock ticks. */
export interface CpuTicks {
  readonly busy: number;
  readonly total: number;
}

/** Parses /proc/stat's `cpu` line; undefined when it is not there. */
export function parseCpuTicks(stat: string): CpuTicks | undefined {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  if (ticks.length < 4 || ticks.some((t) => !Number.isFinite(t))) return undefined;
  // user nice system idle iowait irq softirq steal (guest is already in user): idle and iowait are idle.
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = ticks[3]! + (ticks[4] ?? 0);
  return { busy: total - idle, total };
}

/** Busy cores between two readings, given the machine's core count. */
export function busyCores(before: CpuTicks, after: CpuTicks, cores: number): number {
  const total = after.total - before.total;
  return total <= 0 ? 0 : ((after.busy - before.busy) / total) * cores;
}

/** Cores other work kept busy over the last second; undefined where /proc/stat is missing. */
export async function measureBusyCores(cores: number): Promise<number | undefined> {
  const read = async () => parseCpuTicks(await readFile('/proc/stat', 'utf8').catch(() => ''));
  const before = await read();
  if (before === undefined) return undefined;
  await sleep(SAMPLE_MS);
  const after = await read();
  return after === undefined ? undefined : busyCores(before, after, cores);
}

/** The refusal's text: what was busy and what to do. */
export function busyMachineMessage(cores: number): string {
  return (
    `Other work kept ${cores.toFixed(2)} cores busy over the last second (more than ${BUSY_CORES_MAX}): ` +
    'the figures would be low. Stop it first (leftover Tessera nodes: pgrep -af "main.js start"), ' +
    'or pass --force to measure anyway.'
  );
}

/**
 * Refuses a busy machine with a UsageError that says what to do, unless `force`: then it says so
 * through `log`. Answers whether other work kept the machine busy.
 */
export async function checkQuietMachine(force: boolean, log: (line: string) => void): Promise<boolean> {
  const busy = await measureBusyCores(cpus().length);
  if (busy === undefined || busy <= BUSY_CORES_MAX) return false;
  if (!force) throw new UsageError(busyMachineMessage(busy));
  log(`Note (--force): ${busyMachineMessage(busy)}`);
  return true;
}
