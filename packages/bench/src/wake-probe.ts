/**
 * What a wake-up costs on this machine: the CPU time of a small fixed piece of work (WAKE_PROBE_HASHES
 * chained SHA-256 hashes) done back to back, and done after the thread slept WAKE_PROBE_IDLE_MS. On
 * this project's 2-core VM the same work took about 12 µs back to back and 59 µs after a sleep
 * (docs/benchmarks.md, ninth round): every time a process wakes from idle, its first work runs on
 * cold caches. A node at partial load wakes more often per operation than one at full load, which
 * is why CPU per operation rises as load falls, whatever the code does.
 */
import { createHash } from 'node:crypto';

export const WAKE_PROBE_HASHES = 10;
export const WAKE_PROBE_IDLE_MS = 1;
/** Pieces of work timed each way. */
const ROUNDS = 400;
/** Hashes run untimed first (about 25 ms), so that the compiler and a young heap are not timed. */
const WARMUP_HASHES = 20_000;

export interface WakeProbe {
  /** CPU µs per piece of work, back to back. */
  readonly busyUs: number;
  /** CPU µs per piece of work, each after the thread slept WAKE_PROBE_IDLE_MS. */
  readonly afterIdleUs: number;
}

export function wakeProbe(): WakeProbe {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  hashes(WARMUP_HASHES);
  // The lower of two: other work only slows it.
  const busyUs = Math.min(
    cpuPerRound(() => undefined),
    cpuPerRound(() => undefined),
  );
  const afterIdleUs = cpuPerRound(() => Atomics.wait(sleeper, 0, 0, WAKE_PROBE_IDLE_MS));
  return { busyUs, afterIdleUs };
}

function cpuPerRound(between: () => void): number {
  const started = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) {
    between();
    hashes(WAKE_PROBE_HASHES);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / ROUNDS;
}

function hashes(count: number): void {
  let digest = Buffer.alloc(32);
  for (let i = 0; i < count; i++) digest = createHash('sha256').update(digest).digest();
}
