/**
 * Last writer wins: keeps the sibling with the latest timestamp and drops the others. Right for
 * values where a lost concurrent write is acceptable (a session, a preference, a cache entry);
 * wrong for anything that accumulates (a cart, a list of events): use union() or cart() there.
 */
import { canonical, compareText } from '../canonical.js';
import type { Resolver, Version } from './types.js';

export interface LwwOptions<T> {
  /**
   * The timestamp of a sibling, in any unit where larger is later. Default: the node's
   * `lastModified` (the coordinator's wall clock). Give one read from the value itself when the
   * application stamps its own writes, e.g. `(v) => v.updatedAt`.
   */
  readonly timestamp?: (value: T, version: Version<T>) => number;
}

export function lww<T>(options: LwwOptions<T> = {}): Resolver<T> {
  const timestamp = options.timestamp ?? ((_value: T, version: Version<T>) => version.lastModified.getTime());
  return (siblings, versions) => {
    if (siblings.length === 0) throw new RangeError('lww() needs at least one sibling.');
    // Without versions (a direct call with values only) the node's order stands: oldest first.
    const list: Version<T>[] =
      versions !== undefined && versions.length === siblings.length
        ? versions
        : siblings.map((value, i) => ({ value, lastModified: new Date(i) }));
    let best = list[0]!;
    let bestTime = timestamp(best.value, best);
    let bestText: string | undefined;
    for (let i = 1; i < list.length; i++) {
      const candidate = list[i]!;
      const time = timestamp(candidate.value, candidate);
      if (time < bestTime) continue;
      if (time === bestTime) {
        // A tie is broken by the values themselves, so every client picks the same winner.
        bestText ??= canonical(best.value);
        const text = canonical(candidate.value);
        if (compareText(text, bestText) <= 0) continue;
        bestText = text;
      } else {
        bestText = undefined;
      }
      best = candidate;
      bestTime = time;
    }
    return best.value;
  };
}
