/**
 * How fast this machine runs right now: a fixed CPU load (SPEED_PROBE_HASHES chained SHA-256
 * hashes of 32 bytes, on this thread), timed. On a shared VM the same code has run at half the
 * speed an hour later; the probe before and after each phase says which runs can be compared.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

export const SPEED_PROBE_HASHES = 60_000;

/** Hashes run untimed first, so that the first probe of a run does not time the compiler too. */
const WARMUP_HASHES = 2_000;

/** Milliseconds the fixed load took; lower is faster. */
export function speedProbeMs(): number {
  hashes(WARMUP_HASHES);
  const started = performance.now();
  hashes(SPEED_PROBE_HASHES);
  return performance.now() - started;
}

/** A probe taking longer than this is given up (the machine is stalled, or the worker cannot start). */
export const OFF_THREAD_PROBE_TIMEOUT_MS = 30_000;

/**
 * The same probe on a worker thread (speed-probe-worker.js, built beside this file): the caller's
 * event loop keeps running meanwhile, where a probe on its own thread would stall it for the
 * probe's length (a soak's load, and every latency it measures). Under load the probe also times
 * its share of the cores, which stays about the same while the load does. Rejects on a failed or
 * stalled worker.
 */
export function speedProbeMsOffThread(
  workerUrl: URL = new URL('./speed-probe-worker.js', import.meta.url),
): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl);
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`the speed probe took over ${OFF_THREAD_PROBE_TIMEOUT_MS} ms`));
    }, OFF_THREAD_PROBE_TIMEOUT_MS);
    const settle = (): void => {
      clearTimeout(timer);
      void worker.terminate();
    };
    worker.once('message', (ms: unknown) => {
      settle();
      if (typeof ms === 'number' && Number.isFinite(ms)) resolve(ms);
      else reject(new Error('the speed probe worker answered no time'));
    });
    worker.once('error', (err) => {
      settle();
      reject(err);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the speed probe worker exited (code ${code}) before answering`));
    });
  });
}

/**
 * A phase's speed probe: the faster of the two around it. Other work only slows a probe, and the
 * one before a phase also times what the nodes still do from the phase before (a flush, a
 * compaction, a node's start), so the lower figure is nearer the machine's own speed.
 */
export function probeMs(probe: { readonly before: number; readonly after: number }): number {
  return Math.min(probe.before, probe.after);
}

function hashes(count: number): void {
  let digest = Buffer.alloc(32);
  for (let i = 0; i < count; i++) digest = createHash('sha256').update(digest).digest();
}
