/**
 * A key's versions: the sibling set plus the causal context (version vector) that covers every
 * write this replica has seen for the key. A state with no siblings and a non-empty vector is a
 * tombstone: it remembers what was deleted so a stale replica cannot bring it back.
 */

import {
  type Dot,
  EMPTY_VV,
  type NodeId,
  type VersionVector,
  vvAdd,
  vvCovers,
  vvGet,
  vvMerge,
  vvPrune,
} from './clock.js';
import type { CausalContext } from './context.js';

export interface Sibling {
  readonly dot: Dot;
  /** The value as UTF-8 JSON text: values travel and rest as bytes, never re-encoded. */
  readonly value: Uint8Array;
  readonly lastModifiedMs: number;
}

export interface KeyState {
  readonly vv: VersionVector;
  /** Sorted canonically (see `compareSiblings`), so equal states encode to equal bytes. */
  readonly siblings: readonly Sibling[];
  /**
   * When the key was last deleted, as far as this state knows: `applyWrite` sets it when a delete
   * leaves no sibling, `mergeStates` keeps the maximum. Times tombstone collection; absent in
   * states written before it existed. Not part of `sameState`.
   */
  readonly deletedAtMs?: number;
}

export const EMPTY_STATE: KeyState = Object.freeze({ vv: EMPTY_VV, siblings: Object.freeze([]) });

export interface WriteInput {
  /** The coordinating node: the new version's dot belongs to it. */
  readonly node: NodeId;
  /**
   * What the client saw: every sibling it covers is replaced; EMPTY_CONTEXT for a blind write.
   * Context dots the stored vector does not cover are ignored (treated as unseen, so at worst a
   * superseded version stays a sibling); a coordinator catches up first to avoid that (`contextCaughtUp`).
   */
  readonly context: CausalContext;
  /** The new value, or `undefined` for a delete. */
  readonly value: Uint8Array | undefined;
  readonly nowMs: number;
  /** Bound on version vector entries (paper 4.4 pruning). */
  readonly vvEntriesMax: number;
  /**
   * The smallest counter the new dot may take. A node passes its node-wide, persisted counter, so
   * its dots stay unique even for a key whose state it no longer holds (collected tombstone,
   * partition moved away and back, lost disk). Counters of one node for one key then grow with gaps,
   * which is fine: a vector entry (node, n) says every write of that node to the key up to n was seen.
   */
  readonly counterMin?: number;
}

/**
 * The coordinator's update (paper 4.4): drop the siblings the context covers, add the new value
 * with a fresh dot, and advance the vector. Writes that did not see each other stay siblings.
 */
export function applyWrite(stored: KeyState, input: WriteInput): KeyState {
  const kept = stored.siblings.filter((s) => !contextCovers(input.context, s.dot));
  let vv = vvMerge(stored.vv, input.context.vv);
  let siblings = kept;
  if (input.value !== undefined) {
    const dot: Dot = {
      node: input.node,
      counter: Math.max(vvGet(vv, input.node) + 1, input.counterMin ?? 0),
    };
    vv = vvAdd(vv, dot, input.nowMs);
    siblings = [...kept, { dot, value: input.value, lastModifiedMs: input.nowMs }].sort(compareSiblings);
  }
  const deletedAtMs =
    siblings.length === 0 ? laterDeletion(stored.deletedAtMs, input.nowMs) : stored.deletedAtMs;
  return withDeletedAt({ vv: prune(vv, siblings, input.vvEntriesMax, input.node), siblings }, deletedAtMs);
}

export function contextCovers(context: CausalContext, dot: Dot): boolean {
  return (
    vvCovers(context.vv, dot) || context.dots.some((d) => d.node === dot.node && d.counter === dot.counter)
  );
}

/** True when every dot of `context` is known to `stored`, so `applyWrite` can honour all of it. */
export function contextCaughtUp(stored: KeyState, context: CausalContext): boolean {
  return (
    context.dots.every((d) => vvCovers(stored.vv, d)) &&
    context.vv.every((e) => vvGet(stored.vv, e.node) >= e.counter)
  );
}

/**
 * The context a write returns: what the writer saw plus the version it wrote. The seen dots can be
 * dropped: every replica that holds `written` has a vector covering them, and a coordinator that
 * lacks `written` catches up before honouring the context.
 */
export function contextAfterWrite(seen: CausalContext, written: Dot | undefined): CausalContext {
  return written === undefined ? seen : { vv: seen.vv, dots: [written] };
}

/** The newest dot in `state` coordinated by `node`, i.e. the version `applyWrite` just added. */
export function latestDot(state: KeyState, node: NodeId): Dot | undefined {
  let best: Dot | undefined;
  for (const s of state.siblings)
    if (s.dot.node === node && (best === undefined || s.dot.counter > best.counter)) best = s.dot;
  return best;
}

/**
 * Merges two replicas' states (anti-entropy, read repair, replication). Commutative,
 * associative and idempotent; a sibling survives unless the other side has seen it and dropped it.
 */
export function mergeStates(a: KeyState, b: KeyState): KeyState {
  const deletedAtMs = laterDeletion(a.deletedAtMs, b.deletedAtMs);
  if (a.siblings.length === 0 && a.vv.length === 0) return withDeletedAt(b, deletedAtMs);
  if (b.siblings.length === 0 && b.vv.length === 0) return withDeletedAt(a, deletedAtMs);
  const byDot = new Map<string, Sibling>();
  keepUnseen(a.siblings, b, byDot);
  keepUnseen(b.siblings, a, byDot);
  const merged = { vv: vvMerge(a.vv, b.vv), siblings: [...byDot.values()].sort(compareSiblings) };
  return withDeletedAt(merged, deletedAtMs);
}

function laterDeletion(x: number | undefined, y: number | undefined): number | undefined {
  if (x === undefined) return y;
  return y === undefined ? x : Math.max(x, y);
}

/** `state` with `deletedAtMs` set to `t`, or without it when `t` is undefined. */
function withDeletedAt(state: KeyState, t: number | undefined): KeyState {
  if (state.deletedAtMs === t) return state;
  return t === undefined ? { vv: state.vv, siblings: state.siblings } : { ...state, deletedAtMs: t };
}

function keepUnseen(from: readonly Sibling[], other: KeyState, into: Map<string, Sibling>): void {
  for (const s of from) {
    if (vvCovers(other.vv, s.dot) && !hasDot(other.siblings, s.dot)) continue;
    const id = dotId(s.dot);
    const present = into.get(id);
    into.set(id, present === undefined ? s : pickSameDot(present, s));
  }
}

/** Two siblings with one dot are the same write; pick deterministically should they ever differ. */
function pickSameDot(x: Sibling, y: Sibling): Sibling {
  return compareBytes(x.value, y.value) <= 0 ? x : y;
}

function hasDot(siblings: readonly Sibling[], dot: Dot): boolean {
  return siblings.some((s) => s.dot.node === dot.node && s.dot.counter === dot.counter);
}

function dotId(dot: Dot): string {
  return `${dot.counter}@${dot.node}`;
}

/**
 * Never drops the coordinator's own entry: its next dot is numbered from that entry, so dropping it
 * would hand out a dot again (e.g. after a delete), and a replica that saw the old write would then
 * treat the new one as seen and drop it, or keep the old value in its place.
 */
function prune(
  vv: VersionVector,
  siblings: readonly Sibling[],
  entriesMax: number,
  coordinator: NodeId,
): VersionVector {
  if (vv.length <= entriesMax) return vv;
  return vvPrune(vv, entriesMax, new Set([coordinator, ...siblings.map((s) => s.dot.node)]));
}

export function compareSiblings(x: Sibling, y: Sibling): number {
  if (x.lastModifiedMs !== y.lastModifiedMs) return x.lastModifiedMs - y.lastModifiedMs;
  if (x.dot.node !== y.dot.node) return x.dot.node < y.dot.node ? -1 : 1;
  return x.dot.counter - y.dot.counter;
}

function compareBytes(x: Uint8Array, y: Uint8Array): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** A tombstone: everything was deleted, the vector remembers what. */
export function isTombstone(state: KeyState): boolean {
  return state.siblings.length === 0 && state.vv.length > 0;
}

/** True when both states hold the same siblings and the same vector counters. */
export function sameState(a: KeyState, b: KeyState): boolean {
  if (a.siblings.length !== b.siblings.length || a.vv.length !== b.vv.length) return false;
  for (let i = 0; i < a.vv.length; i++) {
    const x = a.vv[i]!;
    const y = b.vv[i]!;
    if (x.node !== y.node || x.counter !== y.counter) return false;
  }
  for (let i = 0; i < a.siblings.length; i++) {
    const x = a.siblings[i]!.dot;
    const y = b.siblings[i]!.dot;
    if (x.node !== y.node || x.counter !== y.counter) return false;
  }
  return true;
}
