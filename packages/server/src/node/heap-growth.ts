/**
 * How far V8 lets the old generation grow past what the last full collection kept before it runs
 * the next one (config `heapGrowingPercent`). V8's own choice, here about 1.4 times a node's live
 * heap, made n0 run a full collection every 5-7 s under a steady read load; each one (about 10 ms
 * paused, with concurrent marking taking a core of two) left a burst of requests 40-50 ms late,
 * the half-load tail (docs/benchmarks.md, "Issue 18, fourth round"). Growing to three times the
 * live heap runs a third as many, for a higher peak heap. Process-wide: V8 has one heap per process.
 */
import v8 from 'node:v8';

/** Default: the old generation may reach three times what the last full collection kept. */
export const HEAP_GROWING_PERCENT_DEFAULT = 200;

/** The V8 flag for `percent`; 0 gives V8 back its own (dynamic) choice. */
export function heapGrowingFlag(percent: number): string {
  if (!Number.isInteger(percent) || percent < 0)
    throw new RangeError(`heapGrowingPercent must be a whole number >= 0, not ${percent}.`);
  return `--heap-growing-percent=${percent}`;
}

/** Applies `percent` to this process's heap; V8 reads it at every full collection. */
export function applyHeapGrowth(percent: number): void {
  v8.setFlagsFromString(heapGrowingFlag(percent));
}
