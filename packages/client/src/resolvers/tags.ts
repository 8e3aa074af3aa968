/**
 * The observed-remove core that orSet() and the cart share: entries under unique random tags, and
 * tombstones for the tags a writer saw and removed. A merge keeps every entry no tombstone names,
 * and every tombstone, so an add survives unless a writer saw it and removed it, and a removal
 * sticks whatever stale copy comes back. Tombstones are bounded: the `max` most recent (by removal
 * time) are kept; an older one matters only to a copy that stayed apart through `max` removals.
 */
import { canonical, compareText } from '../canonical.js';

/** Default bound on tombstones per value. */
export const TOMBSTONES_MAX = 1000;

export interface TaggedParts<E> {
  readonly entries: Readonly<Record<string, E>>;
  /** Tag → when it was removed (the remover's clock, ms). */
  readonly removed: Readonly<Record<string, number>>;
}

export interface Tagged<E> {
  readonly entries: Map<string, E>;
  readonly removed: Map<string, number>;
}

/** The union of entries and tombstones, without the entries tombstoned anywhere. */
export function mergeTagged<E>(parts: readonly TaggedParts<E>[]): Tagged<E> {
  const removed = new Map<string, number>();
  for (const part of parts) {
    for (const [tag, at] of Object.entries(part.removed)) {
      const seen = removed.get(tag);
      if (seen === undefined || at > seen) removed.set(tag, at);
    }
  }
  const entries = new Map<string, E>();
  for (const part of parts) {
    for (const [tag, entry] of Object.entries(part.entries)) {
      if (removed.has(tag)) continue;
      const seen = entries.get(tag);
      // A tag names one immutable entry; should two copies differ (a bug, a hand edit), one is
      // picked by content so that the merge stays commutative.
      if (seen === undefined || compareText(canonical(entry), canonical(seen)) < 0) entries.set(tag, entry);
    }
  }
  return { entries, removed };
}

/** Tombstones every entry that `matches`, at time `at`. */
export function tombstone<E>(parts: TaggedParts<E>, matches: (entry: E) => boolean, at: number): Tagged<E> {
  const entries = new Map<string, E>();
  const removed = new Map(Object.entries(parts.removed));
  for (const [tag, entry] of Object.entries(parts.entries)) {
    if (matches(entry)) removed.set(tag, at);
    else entries.set(tag, entry);
  }
  return { entries, removed };
}

/** Whether a value already holds (or held and removed) the entry under `tag`. */
export function knowsTag<E>(parts: TaggedParts<E>, tag: string): boolean {
  return Object.hasOwn(parts.entries, tag) || Object.hasOwn(parts.removed, tag);
}

/** The `max` most recent tombstones, sorted by tag (stable JSON). */
export function keptTombstones(removed: ReadonlyMap<string, number>, max: number): [string, number][] {
  return [...removed.entries()]
    .sort(([tagA, atA], [tagB, atB]) => atB - atA || compareText(tagA, tagB))
    .slice(0, Math.max(0, max))
    .sort(([a], [b]) => compareText(a, b));
}

/** Entries sorted by tag. */
export function sortedEntries<E>(entries: ReadonlyMap<string, E>): [string, E][] {
  return [...entries.entries()].sort(([a], [b]) => compareText(a, b));
}

const TAG_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** 72 random bits as 12 base64url characters (crypto.getRandomValues: browsers and Node 20). */
export function newTag(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += TAG_ALPHABET[(n >> 18) & 63]! + TAG_ALPHABET[(n >> 12) & 63]!;
    out += TAG_ALPHABET[(n >> 6) & 63]! + TAG_ALPHABET[n & 63]!;
  }
  return out;
}
