/**
 * Sloppy quorum (paper 4.6): a request goes to the first N *healthy* nodes of the preference list.
 * A fallback that stands in for a down primary is told which primary it replaces (the hint), so
 * it can hand the data back when that primary returns.
 */
import type { NodeId } from './clock.js';

export interface Target {
  readonly node: NodeId;
  /** The down primary this node stands in for; absent for a primary. */
  readonly hint?: NodeId;
}

export interface SloppyTargets {
  readonly targets: Target[];
  /** Healthy fallbacks not used yet, in ring order: substitutes if a target fails mid-request. */
  readonly spares: NodeId[];
}

/**
 * `preference` is the full preference list (primaries first); `isDown` is this node's local view.
 * Primaries that are up are always targets; each down primary is replaced by the next healthy
 * fallback, with a hint naming it. If too few healthy nodes exist, fewer targets are returned.
 */
export function sloppyTargets(
  preference: readonly NodeId[],
  n: number,
  isDown: (node: NodeId) => boolean,
): SloppyTargets {
  const primaries = preference.slice(0, n);
  const spares = preference.slice(n).filter((node) => !isDown(node));
  const targets: Target[] = [];
  const downPrimaries: NodeId[] = [];
  for (const node of primaries) {
    if (isDown(node)) downPrimaries.push(node);
    else targets.push({ node });
  }
  for (const primary of downPrimaries) {
    const stand = spares.shift();
    if (stand === undefined) break;
    targets.push({ node: stand, hint: primary });
  }
  return { targets, spares };
}
