/**
 * Samples processes on this machine from /proc (Linux): resident set size from /proc/<pid>/status
 * (VmRSS, and RssAnon) every 250 ms, keeping the maximum, and at phase edges CPU time from
 * /proc/<pid>/stat and the main thread's wait for a core from /proc/<pid>/schedstat.
 */
import { readFile } from 'node:fs/promises';
import { since } from './counters.js';
import { type CpuTicks, type MachineCpu, machineCpuBetween, readCpuTicks } from './machine-cpu.js';
import type { ProcessStats } from './results.js';

export interface WatchedProcess {
  readonly name: string;
  readonly pid: number;
}

const SAMPLE_EVERY_MS = 250;
/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat; 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_S = 100;

/** VmRSS from the text of /proc/<pid>/status, in bytes; undefined when absent. */
export function parseVmRssBytes(status: string): number | undefined {
  return statusBytes(status, 'VmRSS');
}

/**
 * RssAnon: the resident memory that is the process's own (heap, native allocations), without the
 * file pages it maps — LevelDB maps its table files, and those pages are the kernel's page cache,
 * counted in VmRSS while they are mapped but given back under memory pressure.
 */
export function parseRssAnonBytes(status: string): number | undefined {
  return statusBytes(status, 'RssAnon');
}

function statusBytes(status: string, field: string): number | undefined {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** User plus system CPU time from the text of /proc/<pid>/stat, in ms. */
export function parseCpuMs(stat: string): number | undefined {
  // The command name (field 2) may hold spaces; fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) return undefined;
  return ((userTicks + systemTicks) * 1000) / CLOCK_TICKS_PER_S;
}

/**
 * Time the main thread (the event loop) spent runnable but waiting for a core, from the text of
 * /proc/<pid>/schedstat ("<on cpu ns> <waiting ns> <timeslices>"), in ms; undefined when absent
 * (a kernel without scheduler statistics).
 */
export function parseRunQueueWaitMs(schedstat: string): number | undefined {
  const waitNs = Number(schedstat.trim().split(/\s+/)[1]);
  return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
}

export async function readProc<T>(pid: number, file: string, parse: (text: string) => T | undefined) {
  try {
    return parse(await readFile(`/proc/${pid}/${file}`, 'utf8'));
  } catch {
    return undefined;
  }
}

export class ProcessSampler {
  private readonly watched = new Map<string, number>();
  private readonly phaseRss = new Map<string, number>();
  private readonly runRss = new Map<string, number>();
  private readonly runAnon = new Map<string, number>();
  private readonly phaseCpuStartMs = new Map<string, number>();
  private readonly phaseWaitStartMs = new Map<string, number>();
  private phaseStartedMs = performance.now();
  private phaseTicksStart: CpuTicks | undefined;
  private lastMachine: MachineCpu | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sampling = false;

  watch(process: WatchedProcess): void {
    this.watched.set(process.name, process.pid);
  }

  unwatch(name: string): void {
    this.watched.delete(name);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.sampleRss(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A measured phase begins: RSS maxima start again and CPU time is counted from here. */
  async beginPhase(): Promise<void> {
    this.phaseRss.clear();
    this.phaseCpuStartMs.clear();
    this.phaseWaitStartMs.clear();
    this.phaseStartedMs = performance.now();
    this.phaseTicksStart = await readCpuTicks();
    for (const [name, pid] of this.watched) {
      const cpuMs = await readProc(pid, 'stat', parseCpuMs);
      if (cpuMs !== undefined) this.phaseCpuStartMs.set(name, cpuMs);
      const waitMs = await readProc(pid, 'schedstat', parseRunQueueWaitMs);
      if (waitMs !== undefined) this.phaseWaitStartMs.set(name, waitMs);
    }
  }

  /**
   * Per process since beginPhase(): max RSS, CPU time, CPU per wall-clock time, and the share of
   * wall-clock time its main thread waited for a core.
   */
  async endPhase(): Promise<Record<string, ProcessStats>> {
    await this.sampleRss();
    const wallMs = Math.max(1, performance.now() - this.phaseStartedMs);
    const ticks = await readCpuTicks();
    const start = this.phaseTicksStart;
    this.lastMachine = start && ticks ? machineCpuBetween(start, ticks) : undefined;
    const out: Record<string, ProcessStats> = {};
    for (const [name, pid] of this.watched) {
      const cpuMs = since(this.phaseCpuStartMs.get(name), await readProc(pid, 'stat', parseCpuMs));
      const waitMs = since(
        this.phaseWaitStartMs.get(name),
        await readProc(pid, 'schedstat', parseRunQueueWaitMs),
      );
      out[name] = {
        rssMaxBytes: this.phaseRss.get(name) ?? Number.NaN,
        cpuMs,
        cpuShare: cpuMs / wallMs,
        waitShare: waitMs / wallMs,
      };
    }
    return out;
  }

  /** The whole machine's idle and stolen cores over the last phase ended; undefined without /proc/stat. */
  phaseMachine(): MachineCpu | undefined {
    return this.lastMachine;
  }

  runRssMaxBytes(): Record<string, number> {
    return Object.fromEntries(this.runRss);
  }

  /** The most anonymous memory (RssAnon) each process held during the run. */
  runAnonMaxBytes(): Record<string, number> {
    return Object.fromEntries(this.runAnon);
  }

  private async sampleRss(): Promise<void> {
    if (this.sampling) return;
    this.sampling = true;
    try {
      for (const [name, pid] of this.watched) {
        const status = await readProc(pid, 'status', (text) => text);
        const bytes = status === undefined ? undefined : parseVmRssBytes(status);
        if (status === undefined || bytes === undefined) continue;
        this.phaseRss.set(name, Math.max(bytes, this.phaseRss.get(name) ?? 0));
        this.runRss.set(name, Math.max(bytes, this.runRss.get(name) ?? 0));
        const anon = parseRssAnonBytes(status);
        if (anon !== undefined) this.runAnon.set(name, Math.max(anon, this.runAnon.get(name) ?? 0));
      }
    } finally {
      this.sampling = false;
    }
  }
}
