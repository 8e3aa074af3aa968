/**
 * Sloppy quorum (paper 4.6): a request goes to the first N *healthy* nodes of the preference list.
 * A fallback that stands in for a down primary is told which primary it replaces (the hint), so
 * it can hand the data back when that primary returns.
 */
import type { NodeId } from './clock.js';
import { IndexedMemo } from './memo.js';
import { PARTITION_COUNT_MAX, primariesOf } from './ring.js';

export interface Target {
  readonly node: NodeId;
  /** The down primary this node stands in for; absent for a primary. */
  readonly hint?: NodeId;
}

export interface SloppyTargets {
  readonly targets: readonly Target[];
  /**
   * Fallbacks not used yet, in ring order, healthy ones first, then those this node suspects are
   * down (they may be back): substitutes if a target fails mid-request.
   */
  readonly spares: NodeId[];
}

/**
 * `preference` is the full preference list (primaries first); `isDown` is this node's local view.
 * Primaries that are up are always targets; each down primary is replaced by the next healthy
 * fallback, with a hint naming it. A down primary that no healthy fallback can replace is asked
 * itself: a suspicion may be stale, and asking costs one failed call where not asking fails the
 * request. So there are always min(N, preference length) targets.
 */
export function sloppyTargets(
  preference: readonly NodeId[],
  n: number,
  isDown: (node: NodeId) => boolean,
): SloppyTargets {
  if (!anyDown(preference, isDown))
    return { targets: healthyTargets(preference, n), spares: copyFrom(preference, n) };
  const primaries = preference.slice(0, n);
  const fallbacks = preference.slice(n);
  const healthy = fallbacks.filter((node) => !isDown(node));
  const suspects = fallbacks.filter((node) => isDown(node));
  const targets: Target[] = [];
  const downPrimaries: NodeId[] = [];
  for (const node of primaries) {
    if (isDown(node)) downPrimaries.push(node);
    else targets.push({ node });
  }
  for (const primary of downPrimaries) {
    const stand = healthy.shift();
    targets.push(stand === undefined ? { node: primary } : { node: stand, hint: primary });
  }
  return { targets, spares: [...healthy, ...suspects] };
}

/** Targets when every node is up, per preference list (ring.ts shares those) and N: made once, frozen. */
const allUp = new IndexedMemo<readonly NodeId[], readonly Target[]>(PARTITION_COUNT_MAX);

function healthyTargets(preference: readonly NodeId[], n: number): readonly Target[] {
  return allUp.get(preference, n, primaryTargets);
}

function primaryTargets(preference: readonly NodeId[], n: number): readonly Target[] {
  return Object.freeze(primariesOf(preference, n).map((node) => Object.freeze({ node })));
}

/*
 * Loops rather than `some` and `slice`: the lists are frozen (ring.ts shares them), and V8's
 * `slice` of a frozen array takes its slow path, about 0.5 µs, on every request.
 */
function anyDown(preference: readonly NodeId[], isDown: (node: NodeId) => boolean): boolean {
  for (let i = 0; i < preference.length; i++) if (isDown(preference[i]!)) return true;
  return false;
}

/** A fresh array of `list` from `start` on. */
function copyFrom(list: readonly NodeId[], start: number): NodeId[] {
  const out: NodeId[] = [];
  for (let i = start; i < list.length; i++) out.push(list[i]!);
  return out;
}
