/**
 * An in-memory sorted map from string keys to bytes: a Map for lookups plus a sorted key array
 * for ranges (binary search). Stored arrays are never handed out; callers copy.
 */
import { compareKeys } from './keys.js';

export class SortedTable {
  private readonly values = new Map<string, Uint8Array>();
  /** Every key of `values`, in `compareKeys` order. */
  private readonly keys: string[] = [];

  get(key: string): Uint8Array | undefined {
    return this.values.get(key);
  }

  set(key: string, value: Uint8Array): void {
    if (!this.values.has(key)) this.keys.splice(this.lowerBound(key), 0, key);
    this.values.set(key, value);
  }

  delete(key: string): void {
    if (!this.values.delete(key)) return;
    this.keys.splice(this.lowerBound(key), 1);
  }

  /** A snapshot of the entries with gte <= key < lt, at most `limit` of them. */
  range(gte: string | undefined, lt: string | undefined, limit: number): [string, Uint8Array][] {
    const out: [string, Uint8Array][] = [];
    for (let i = gte === undefined ? 0 : this.lowerBound(gte); i < this.keys.length; i++) {
      if (out.length >= limit) break;
      const key = this.keys[i]!;
      if (lt !== undefined && compareKeys(key, lt) >= 0) break;
      out.push([key, this.values.get(key)!]);
    }
    return out;
  }

  /** The index of the first key >= `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
