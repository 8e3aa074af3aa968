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

function hashes(count: number): void {
  let digest = Buffer.alloc(32);
  for (let i = 0; i < count; i++) digest = createHash('sha256').update(digest).digest();
}
