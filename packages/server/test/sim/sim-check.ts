/**
 * The simulation's checker: after healing, every replica of a key holds the same live versions,
 * no acknowledged write is missing unless a later write saw it, nothing appears that no client
 * wrote, and nothing an acknowledged write or delete replaced is live again.
 */
import { type KeyState, sameState } from '@tessera/core';

/** One client write or delete, as the driver issued it. */
export interface WriteRecord {
  readonly key: string;
  /** Undefined for a delete. */
  readonly value: string | undefined;
  /**
   * Values of the read whose context the write carried: the write may legitimately replace them,
   * and once it is acknowledged they must never be live again (its vector covers them).
   */
  readonly saw: readonly string[];
  acked: boolean;
}

export interface Findings {
  readonly lost: string[];
  readonly diverged: string[];
  readonly phantom: string[];
  /** Values an acknowledged write or delete replaced (had seen) that are live again. */
  readonly resurrected: string[];
}

export const decodeValues = (s: KeyState): string[] =>
  s.siblings.map((x) => JSON.parse(new TextDecoder().decode(x.value)) as string);

/** A replica's live versions, by dot. */
const live = (s: KeyState | undefined): string =>
  (s?.siblings ?? [])
    .map((x) => `${x.dot.node}:${x.dot.counter}`)
    .sort()
    .join(',');

/** Checks `key` given its replicas' stored states and every write issued (all keys); adds to `found`. */
export function checkKey(
  key: string,
  states: readonly (KeyState | undefined)[],
  allWrites: readonly WriteRecord[],
  found: Findings,
): void {
  // A tombstone and no state at all both mean "no live value": anti-entropy does not copy
  // tombstones to replicas that hold nothing (docs/consistency.md), so compare live versions.
  const first = states.find((s) => s !== undefined && s.siblings.length > 0) ?? { vv: [], siblings: [] };
  if (!states.every((s) => live(s) === live(first))) found.diverged.push(key);
  if (first.siblings.length > 0 && !states.every((s) => s !== undefined && sameState(s, first)))
    found.diverged.push(key);
  const present = new Set(decodeValues(first));
  const writes = allWrites.filter((w) => w.key === key);
  // Any write with a context may have replaced what its read saw, acknowledged or not; an
  // acknowledged one surely did.
  const replaceable = new Set(writes.flatMap((w) => w.saw));
  const replaced = new Set(writes.filter((w) => w.acked).flatMap((w) => w.saw));
  for (const w of writes) {
    if (!w.acked || w.value === undefined) continue;
    if (!present.has(w.value) && !replaceable.has(w.value)) found.lost.push(w.value);
  }
  const issued = new Set(allWrites.map((w) => w.value));
  for (const v of present) {
    if (!issued.has(v)) found.phantom.push(v);
    if (replaced.has(v)) found.resurrected.push(v);
  }
}
