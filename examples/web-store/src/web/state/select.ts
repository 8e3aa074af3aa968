/** What the views read from the state, derived in one place. Pure. */
import type { ClusterView } from '../../shared/api.js';
import type { AppState } from './app-state.js';

/** The node this tab talks to: the one it is pinned to, or on "auto" the one that served it last. */
export function thisNode(state: Pick<AppState, 'tab' | 'cart'>): string | undefined {
  if (state.tab.node !== 'auto') return state.tab.node;
  return state.cart?.servedBy.nodeId;
}

/**
 * The node to offer a second tab: never this tab's; one that is up when there is one; the last
 * such node in order (for a tab on n0 that is n2, as the guide in docs/web-store.md says).
 */
export function otherNode(cluster: ClusterView | undefined, mine: string | undefined): string | undefined {
  if (cluster === undefined || mine === undefined) return undefined;
  const others = cluster.nodes.filter((n) => n.id !== mine);
  const up = others.filter((n) => n.state === 'up');
  return (up.length > 0 ? up : others).at(-1)?.id;
}

/**
 * The summary of the last merge is about the versions of an earlier split: once the cluster has
 * been split again after it, it is old news and is not shown.
 */
export function showPastMerge(state: Pick<AppState, 'cart' | 'cluster'>): boolean {
  const past = state.cart?.lastReconciliation;
  if (past === undefined || state.cart?.reconciliation !== undefined) return false;
  const view = state.cluster?.view;
  if (view === undefined) return true;
  if (view.split !== null) return false;
  return view.lastSplitAt === null || Date.parse(view.lastSplitAt) <= Date.parse(past.resolvedAt);
}
