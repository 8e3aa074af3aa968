/**
 * How fast this machine runs right now: a fixed CPU load (SPEED_PROBE_HASHES chained SHA-256
 * hashes of 32 bytes, on this thread), timed. On a shared VM the same code has run at half the
 * speed an hour later; the probe before and after each phase says which runs can be compared.
 */
import { createHash } from 'node:crypto';

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
