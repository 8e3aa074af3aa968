/**
 * Runs one phase as a closed loop: each worker keeps one request in flight (one per connection),
 * issuing the next as soon as the last one answered, until the time is up or the driver has no
 * more work; or, with a rate, as an open loop: operations start on a fixed schedule, each taken
 * by the next free worker. Operations that start during the warmup are not measured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LateRequests } from './late-bursts.js';
import type { LoopDelayProbe } from './loop-probe.js';
import type { ProcessSampler } from './proc-sampler.js';
import type { ProgressSink } from './progress.js';
import { type Outcome, PhaseRecorder } from './recorder.js';
import type { PhaseResult } from './results.js';
import { speedProbeMs } from './speed-probe.js';
import { LatencyWindows } from './windows.js';

export interface PendingOp {
  readonly kind: string;
  run(): Promise<Outcome>;
}

export interface Driver {
  /** The next operation for this worker, or undefined when the phase has no more work. */
  next(worker: number): PendingOp | undefined;
}

export interface PhasePlan {
  readonly head: Pick<PhaseResult, 'name' | 'system' | 'target'>;
  readonly workers: number;
  readonly warmupMs: number;
  /** Measured time; for phases that end when the driver runs dry, an upper bound. */
  readonly durationMs: number;
  /** True when the phase ends when the driver runs dry rather than when the time is up. */
  readonly untilDone?: boolean;
  readonly driver: Driver;
  /** Called once when the measured time begins (after the warmup). */
  readonly onMeasureStart?: () => void;
  /** Also report latency per window of this many ms (successful measured operations). */
  readonly windowMs?: number;
  /**
   * Open loop: start operations at this fixed rate (one every 1000 / rate ms, taken by the next free
   * worker) instead of as fast as the workers go. `workers` bounds the operations in flight.
   */
  readonly ratePerSec?: number;
}

export interface PhaseContext {
  readonly progress: ProgressSink;
  readonly processes: ProcessSampler;
  /** Event-loop delay of the nodes over the measured time, when there are nodes to ask. */
  readonly loopDelay?: LoopDelayProbe;
  /** Set to stop every phase early (Ctrl-C). */
  readonly signal: AbortSignal;
}

const TRANSPORT_BACKOFF_MS = 10;
const PROGRESS_EVERY_MS = 1_000;

export async function runPhase(plan: PhasePlan, ctx: PhaseContext): Promise<PhaseResult> {
  const speedBeforeMs = speedProbeMs();
  const recorder = new PhaseRecorder();
  const windows = plan.windowMs === undefined ? undefined : new LatencyWindows(plan.windowMs);
  const late = new LateRequests();
  const startedMs = performance.now();
  const measureFromMs = startedMs + plan.warmupMs;
  const endMs = measureFromMs + plan.durationMs;
  let measureStarted: Promise<void> | undefined;
  const beginMeasuring = (): Promise<void> => {
    if (measureStarted === undefined) plan.onMeasureStart?.();
    measureStarted ??= Promise.all([ctx.processes.beginPhase(), ctx.loopDelay?.begin()]).then(() => {});
    return measureStarted;
  };
  const warmupTimer = setTimeout(() => void beginMeasuring(), plan.warmupMs);

  let lastCount = 0;
  let lastMs = startedMs;
  const ticker = setInterval(() => {
    const now = performance.now();
    ctx.progress.update({
      phase: `${plan.head.name} (${plan.head.target})`,
      elapsedMs: now - startedMs,
      totalMs: plan.untilDone === true ? undefined : plan.warmupMs + plan.durationMs,
      warmup: now < measureFromMs,
      opsPerSec: ((recorder.completedOps - lastCount) * 1000) / Math.max(1, now - lastMs),
      completedOps: recorder.completedOps,
      failedOps: recorder.failedOps,
      p99Ms: recorder.p99Ms(),
    });
    lastCount = recorder.completedOps;
    lastMs = now;
  }, PROGRESS_EVERY_MS);

  const pace =
    plan.ratePerSec === undefined ? undefined : schedule(startedMs, measureFromMs, plan.ratePerSec);
  const worker = async (index: number): Promise<void> => {
    while (!ctx.signal.aborted && performance.now() < endMs) {
      const slotMs = pace?.(performance.now());
      if (slotMs !== undefined) {
        if (slotMs >= endMs) return;
        const waitMs = slotMs - performance.now();
        if (waitMs > 0) await sleep(waitMs);
        if (ctx.signal.aborted) return;
      }
      const op = plan.driver.next(index);
      if (op === undefined) return;
      // Paced: latency counts from the slot, so a request that waited for a free worker says so;
      // a timer may fire up to a millisecond early (libuv's clock), and then it counts from the start.
      const t0 = slotMs === undefined ? performance.now() : Math.min(slotMs, performance.now());
      const outcome = await op
        .run()
        .catch((err: unknown): Outcome => ({ error: errorCode(err), transport: true }));
      const t1 = performance.now();
      recorder.record(op.kind, (t1 - t0) * 1000, outcome, t0 >= measureFromMs);
      if (t0 >= measureFromMs && outcome.error === undefined) {
        windows?.record(t0 - measureFromMs, (t1 - t0) * 1000);
        late.record(t0 - measureFromMs, t1 - t0);
      }
      if (outcome.transport === true) await sleep(TRANSPORT_BACKOFF_MS);
    }
  };
  try {
    await Promise.all(Array.from({ length: plan.workers }, (_, i) => worker(i)));
  } finally {
    clearInterval(ticker);
    clearTimeout(warmupTimer);
    ctx.progress.done();
  }
  const measuredMs = Math.max(0, performance.now() - Math.max(measureFromMs, startedMs));
  await beginMeasuring();
  const [processes, eventLoop] = await Promise.all([ctx.processes.endPhase(), ctx.loopDelay?.end()]);
  const result = recorder.summarize(plan.head, measuredMs, processes);
  const machineCpu = ctx.processes.phaseMachine();
  // A phase that runs until its driver is dry (the bulk load) is late by design: not reported.
  const lateSummary = plan.untilDone === true ? undefined : late.summarize(result.ops);
  return {
    ...result,
    speedProbeMs: { before: speedBeforeMs, after: speedProbeMs() },
    ...(machineCpu === undefined ? {} : { machineCpu }),
    ...(windows === undefined ? {} : { windows: windows.summarize() }),
    ...(lateSummary === undefined ? {} : { late: lateSummary }),
    ...(eventLoop === undefined || Object.keys(eventLoop).length === 0 ? {} : { eventLoop }),
  };
}

/**
 * Start times one after another, 1000 / rate ms apart, from `startMs`; the measured time's from
 * `measureFromMs`. Slots of the warmup that have not started when the measured time begins are
 * dropped: a cold cluster is slow for its first second, and the backlog it leaves would otherwise
 * make the first measured operations late for what happened before them. A backlog the measured
 * time builds itself still counts in full.
 */
export function schedule(
  startMs: number,
  measureFromMs: number,
  ratePerSec: number,
): (nowMs: number) => number {
  if (!(ratePerSec > 0)) throw new RangeError(`rate must be > 0 per second, got ${ratePerSec}`);
  const gapMs = 1000 / ratePerSec;
  let base = startMs;
  let slots = 0;
  return (nowMs) => {
    if (base < measureFromMs && nowMs >= measureFromMs && base + slots * gapMs < measureFromMs) {
      base = measureFromMs;
      slots = 0;
    }
    return base + slots++ * gapMs;
  };
}

/** A stable code for a thrown error: undici's `code` (UND_ERR_SOCKET, ECONNREFUSED, …) or its name. */
export function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    if (err instanceof Error) return err.name;
  }
  return 'UNKNOWN';
}
