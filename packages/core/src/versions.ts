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
} from './clock.js';
import type { CausalContext } from './context.js';
import { TesseraError } from './errors.js';

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
  /**
   * The actor stamping the new version's dot (actors.ts): one of the coordinating node's actors
   * whose every earlier write to this key is in `stored`, which `ActorLife.actorFor` picks.
   */
  readonly actor: NodeId;
  /**
   * What the client saw: every sibling it covers is replaced; EMPTY_CONTEXT for a blind write.
   * Context dots the stored vector does not cover are ignored (treated as unseen, so at worst a
   * superseded version stays a sibling); a coordinator catches up first to avoid that (`contextCaughtUp`).
   */
  readonly context: CausalContext;
  /** The new value, or `undefined` for a delete. */
  readonly value: Uint8Array | undefined;
  readonly nowMs: number;
  /**
   * Bound on the key's version vector entries: a write that would grow the vector past it is
   * refused (CLOCK_TOO_LARGE). Vectors are never pruned: dropping an entry would lose the only
   * record that the versions it covered were replaced or deleted (docs/consistency.md).
   */
  readonly vvEntriesMax: number;
}

/**
 * The coordinator's update (paper 4.4): drop the siblings the context covers, add the new value
 * with a fresh dot, and advance the vector. Writes that did not see each other stay siblings.
 */
export function applyWrite(stored: KeyState, input: WriteInput): KeyState {
  // Loops, not filter/some/every, here and below: states read from a node's cache, EMPTY_STATE
  // and EMPTY_CONTEXT are frozen, and V8 takes a slow path for those builtins on frozen arrays
  // (0.1-0.5 µs a call, measured), on every write.
  const kept: Sibling[] = [];
  for (const s of stored.siblings) if (!contextCovers(input.context, s.dot)) kept.push(s);
  let vv = vvMerge(stored.vv, input.context.vv);
  let siblings = kept;
  if (input.value !== undefined) {
    const dot: Dot = { node: input.actor, counter: vvGet(vv, input.actor) + 1 };
    vv = vvAdd(vv, dot, input.nowMs);
    siblings = [...kept, { dot, value: input.value, lastModifiedMs: input.nowMs }].sort(compareSiblings);
  }
  if (vv.length > input.vvEntriesMax && vv.length > stored.vv.length) throw clockTooLarge(stored, vv, input);
  const deletedAtMs =
    siblings.length === 0 ? laterDeletion(stored.deletedAtMs, input.nowMs) : stored.deletedAtMs;
  return withDeletedAt({ vv, siblings }, deletedAtMs);
}

function clockTooLarge(stored: KeyState, vv: VersionVector, input: WriteInput): TesseraError {
  return new TesseraError(
    'CLOCK_TOO_LARGE',
    `The write would grow the key's version vector to ${vv.length} entries (it has ${stored.vv.length}; the limit, vvEntriesMax, is ${input.vvEntriesMax}). ` +
      'Each entry is one life of a node that wrote the key. Retry without an old context or through another replica, or raise vvEntriesMax (docs/consistency.md, "Version vectors").',
    { entries: vv.length, vvEntriesMax: input.vvEntriesMax },
  );
}

export function contextCovers(context: CausalContext, dot: Dot): boolean {
  if (vvCovers(context.vv, dot)) return true;
  for (const d of context.dots) if (d.node === dot.node && d.counter === dot.counter) return true;
  return false;
}

/** True when every dot of `context` is known to `stored`, so `applyWrite` can honour all of it. */
export function contextCaughtUp(stored: KeyState, context: CausalContext): boolean {
  for (const d of context.dots) if (!vvCovers(stored.vv, d)) return false;
  for (const e of context.vv) if (vvGet(stored.vv, e.node) < e.counter) return false;
  return true;
}

/** Single dots a context carries beyond its vector, at most (the oldest go first: safe, see below). */
export const CONTEXT_DOTS_MAX = 64;

/**
 * The context a write returns: what the writer saw (its vector and single dots, one per actor)
 * plus the version it wrote, and not other writes the same actor made concurrently. Keeping the
 * seen dots lets a chain of writes replace every version it wrote even where one write's
 * coordinator could not catch up. Past CONTEXT_DOTS_MAX only the written dot is kept: dropping a
 * seen dot can only leave a replaced version as a sibling, never drop a write.
 */
export function contextAfterWrite(seen: CausalContext, written: Dot | undefined): CausalContext {
  if (written === undefined) return seen;
  // A seen dot of the writing actor is replaced by the new one wherever that one is: the actor
  // stamped it on a state holding all its earlier writes, and the context covered the seen dot.
  const dots: Dot[] = [];
  for (const d of seen.dots) if (d.node !== written.node && !vvCovers(seen.vv, d)) dots.push(d);
  dots.push(written);
  dots.sort((x, y) => (x.node < y.node ? -1 : x.node > y.node ? 1 : 0));
  return { vv: seen.vv, dots: dots.length > CONTEXT_DOTS_MAX ? [written] : dots };
}

/** The newest dot in `state` stamped by `actor`, i.e. the version `applyWrite` just added. */
export function latestDot(state: KeyState, actor: NodeId): Dot | undefined {
  let best: Dot | undefined;
  for (const s of state.siblings)
    if (s.dot.node === actor && (best === undefined || s.dot.counter > best.counter)) best = s.dot;
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
  const otherDots = dotIndex(other.siblings);
  for (const s of from) {
    if (vvCovers(other.vv, s.dot) && !holds(other.siblings, otherDots, s.dot)) continue;
    const id = dotId(s.dot);
    const present = into.get(id);
    into.set(id, present === undefined ? s : pickSameDot(present, s));
  }
}

/** Past this many siblings, a side's dots are looked up in a map, so a merge stays linear. */
const DOT_SCAN_MAX = 16;

/** A side's dots by node, when it has many siblings; undefined for a few (a scan is cheaper). */
type DotIndex = Map<string, Set<number>> | undefined;

function dotIndex(siblings: readonly Sibling[]): DotIndex {
  if (siblings.length <= DOT_SCAN_MAX) return undefined;
  const index = new Map<string, Set<number>>();
  for (const { dot } of siblings) {
    const counters = index.get(dot.node);
    if (counters === undefined) index.set(dot.node, new Set([dot.counter]));
    else counters.add(dot.counter);
  }
  return index;
}

/** Whether `siblings` (whose `dotIndex` is `index`) hold `dot`. */
function holds(siblings: readonly Sibling[], index: DotIndex, dot: Dot): boolean {
  return index === undefined ? hasDot(siblings, dot) : index.get(dot.node)?.has(dot.counter) === true;
}

/** Two siblings with one dot are the same write; pick deterministically should they ever differ. */
function pickSameDot(x: Sibling, y: Sibling): Sibling {
  return compareBytes(x.value, y.value) <= 0 ? x : y;
}

function hasDot(siblings: readonly Sibling[], dot: Dot): boolean {
  for (const s of siblings) if (s.dot.node === dot.node && s.dot.counter === dot.counter) return true;
  return false;
}

function dotId(dot: Dot): string {
  return `${dot.counter}@${dot.node}`;
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

/**
 * Whether a change from `stored` to `next` restarts the tombstone's collection clock: every change
 * that leaves a tombstone does, not only the one that made it. A later delete merged into a
 * tombstone (covering a version written during a partition) must be synced to every replica again
 * before the tombstone may go, or a replica still holding that version brings it back.
 */
export function restartsTombstoneClock(stored: KeyState, next: KeyState): boolean {
  return isTombstone(next) && !(isTombstone(stored) && sameState(stored, next));
}

/**
 * When the state last changed as far as it records: its newest vector entry or delete, by the
 * clocks of the coordinators that made them. A copy older than the tombstone grace may hold what a
 * collected delete covered (see the retirer).
 */
export function lastChangeMs(state: KeyState): number {
  let t = state.deletedAtMs ?? 0;
  for (const e of state.vv) if (e.timestampMs > t) t = e.timestampMs;
  return t;
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
