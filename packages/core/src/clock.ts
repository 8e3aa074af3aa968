/**
 * Causality per key: version vectors whose entries belong to server nodes, and dots — one
 * (node, counter) event each. Together with the sibling set in `versions.ts` they form a dotted
 * version vector set: two writes that did not see each other are never ordered, even when the
 * same coordinator handled both.
 */

export type NodeId = string;

/** One write event: the `counter`-th write to a key coordinated by `node`. */
export interface Dot {
  readonly node: NodeId;
  readonly counter: number;
}

/** One version vector entry; `timestampMs` is when the entry last advanced (used for pruning). */
export interface VvEntry {
  readonly node: NodeId;
  readonly counter: number;
  readonly timestampMs: number;
}

/** Entries sorted by node id, one per node, counters >= 1. */
export type VersionVector = readonly VvEntry[];

export type Ordering = 'equal' | 'before' | 'after' | 'concurrent';

export const EMPTY_VV: VersionVector = Object.freeze([]);

export function vvGet(vv: VersionVector, node: NodeId): number {
  for (const e of vv) if (e.node === node) return e.counter;
  return 0;
}

/** True when the write `dot` is part of the history `vv` describes. */
export function vvCovers(vv: VersionVector, dot: Dot): boolean {
  return vvGet(vv, dot.node) >= dot.counter;
}

/** Pointwise maximum; the timestamp follows the larger counter (the later one on ties). */
export function vvMerge(a: VersionVector, b: VersionVector): VersionVector {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: VvEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.node < y.node)) {
      out.push(x!);
      i++;
    } else if (x === undefined || y.node < x.node) {
      out.push(y);
      j++;
    } else {
      out.push(laterEntry(x, y));
      i++;
      j++;
    }
  }
  return out;
}

function laterEntry(x: VvEntry, y: VvEntry): VvEntry {
  if (x.counter !== y.counter) return x.counter > y.counter ? x : y;
  return x.timestampMs >= y.timestampMs ? x : y;
}

/** Sets `dot.node`'s entry to at least `dot.counter`. */
export function vvAdd(vv: VersionVector, dot: Dot, timestampMs: number): VersionVector {
  return vvMerge(vv, [{ node: dot.node, counter: dot.counter, timestampMs }]);
}

export function vvCompare(a: VersionVector, b: VersionVector): Ordering {
  let aBigger = false;
  let bBigger = false;
  for (const e of a) if (e.counter > vvGet(b, e.node)) aBigger = true;
  for (const e of b) if (e.counter > vvGet(a, e.node)) bBigger = true;
  if (aBigger && bBigger) return 'concurrent';
  if (aBigger) return 'after';
  if (bBigger) return 'before';
  return 'equal';
}
