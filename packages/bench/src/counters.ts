/** Cumulative counters read at two instants (CPU time, time waiting for a core): their difference. */

/** `end - start`, NaN when either was not read. */
export function since(start: number | undefined, end: number | undefined): number {
  return start === undefined || end === undefined ? Number.NaN : end - start;
}
