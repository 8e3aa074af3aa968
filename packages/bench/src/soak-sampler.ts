/**
 * `pnpm bench --soak`: samples every node at fixed offsets from the start of the measured time
 * (every sampleMs, on schedule rather than drifting): RSS, anonymous RSS, CPU time and the main
 * thread's wait for a core from /proc (proc-sampler's readers), heap used and the event-loop delay
 * histogram from its /metrics; and, on every round, the machine's speed (the speed probe, off this
 * thread) and CPU ticks (machine-cpu.ts).
 */
import { scrapeMetrics } from './loop-probe.js';
import { readCpuTicks } from './machine-cpu.js';
import {
  parseCpuMs,
  parseRssAnonBytes,
  parseRunQueueWaitMs,
  parseVmRssBytes,
  readProc,
} from './proc-sampler.js';
import { HEAP_USED_GAUGE, LOOP_DELAY_FAMILY, parseGauge, parseHistogram } from './prom-text.js';
import type { NodeSample, SampleRound } from './soak-minutes.js';

/** At most this often (a sample scrapes every node's /metrics, tens of KB each). */
const SAMPLE_EVERY_MS_MAX = 5_000;
/** A bound on the rounds kept (ten hours at 5 s). */
const ROUNDS_MAX = 7_200;

/** The machine's speed probe, taken on every round: ms of the fixed load (speed-probe.ts); a rejection leaves the round without one. */
export type SoakProbe = () => Promise<number>;

interface Target {
  readonly url: string;
  readonly pid: number | undefined;
}

/** The sampling interval for a window: the window cut into equal steps of at most 5 s. */
export function sampleEveryMs(windowMs: number): number {
  return windowMs / Math.max(1, Math.ceil(windowMs / SAMPLE_EVERY_MS_MAX));
}

export class SoakSampler {
  private readonly targets = new Map<string, Target>();
  private readonly taken: SampleRound[] = [];
  private startMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    readonly everyMs: number,
    private readonly probe?: SoakProbe,
  ) {
    if (!(everyMs > 0)) throw new RangeError(`sampling interval must be > 0 ms, got ${everyMs}`);
  }

  watch(name: string, url: string, pid: number | undefined): void {
    this.targets.set(name, { url, pid });
  }

  /** The measured time begins: round 0 now, round j at j × everyMs from here. */
  start(): void {
    if (this.timer !== undefined) return;
    this.startMs = performance.now();
    this.schedule(0);
  }

  /** The measured time ended: a last round if the scheduled one has not been taken; the rounds. */
  async stop(): Promise<readonly SampleRound[]> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.pending;
    const index = Math.round((performance.now() - this.startMs) / this.everyMs);
    if (index > (this.taken.at(-1)?.index ?? -1)) await this.take(index);
    return this.taken;
  }

  private schedule(index: number): void {
    if (index >= ROUNDS_MAX) return;
    const waitMs = Math.max(0, this.startMs + index * this.everyMs - performance.now());
    this.timer = setTimeout(() => {
      this.pending = this.take(index).then(() => {
        if (this.timer !== undefined) this.schedule(index + 1);
      });
    }, waitMs);
    this.timer.unref();
  }

  private async take(index: number): Promise<void> {
    const probed = this.probe?.().catch(() => undefined);
    const [cpuTicks, ...entries] = await Promise.all([
      readCpuTicks(),
      ...[...this.targets].map(async ([name, target]) => [name, await sampleNode(target)] as const),
    ]);
    const speedProbeMs = await probed;
    this.taken.push({
      index,
      nodes: Object.fromEntries(entries),
      ...(speedProbeMs === undefined ? {} : { speedProbeMs }),
      ...(cpuTicks === undefined ? {} : { cpuTicks }),
    });
  }
}

async function sampleNode(target: Target): Promise<NodeSample> {
  const [status, cpuMs, waitMs, text] = await Promise.all([
    target.pid === undefined ? undefined : readProc(target.pid, 'status', (t) => t),
    target.pid === undefined ? undefined : readProc(target.pid, 'stat', parseCpuMs),
    target.pid === undefined ? undefined : readProc(target.pid, 'schedstat', parseRunQueueWaitMs),
    scrapeMetrics(target.url),
  ]);
  const defined = <K extends keyof NodeSample>(key: K, value: NodeSample[K] | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    ...defined('rssBytes', status === undefined ? undefined : parseVmRssBytes(status)),
    ...defined('anonBytes', status === undefined ? undefined : parseRssAnonBytes(status)),
    ...defined('cpuMs', cpuMs),
    ...defined('waitMs', waitMs),
    ...defined('heapUsedBytes', text === undefined ? undefined : parseGauge(text, HEAP_USED_GAUGE)),
    ...defined('loop', text === undefined ? undefined : parseHistogram(text, LOOP_DELAY_FAMILY)),
  };
}
