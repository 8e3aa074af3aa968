/**
 * The "what each replica holds" view, derived from the nodes' copies and the cluster picture (pure).
 * A node's state comes from the cluster picture, the same one the cluster panel draws, so the two
 * never disagree about a node; its copy is the one the store last read from it.
 */
import type { ClusterView, NodeState, ReplicaCopy, ReplicasView } from '../../shared/api.js';

export type Agreement = 'same' | 'behind' | 'diverged' | 'unknown';

export interface ReplicaCard {
  readonly nodeId: string;
  /** From the cluster picture; "asking" while the node is up but its copy is not read yet. */
  readonly shows: 'copy' | 'no-copy' | 'stopped' | 'unreachable' | 'asking';
  readonly copy: ReplicaCopy | undefined;
  /** One sentence about this copy compared with the others, or "". */
  readonly note: string;
  /** Whether the note is news that this node lacks something. */
  readonly behind: boolean;
}

export interface ReplicasSummary {
  readonly agreement: Agreement;
  readonly headline: string;
  readonly cards: readonly ReplicaCard[];
}

export const joinNames = (ids: readonly string[]): string =>
  ids.length <= 1 ? (ids[0] ?? '') : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;

const verb = (ids: readonly string[], one: string, many: string): string =>
  `${joinNames(ids)} ${ids.length === 1 ? one : many}`;

function shows(state: NodeState | undefined, copy: ReplicaCopy | undefined): ReplicaCard['shows'] {
  if (state === 'stopped') return 'stopped';
  if (state === 'unreachable') return 'unreachable';
  if (copy === undefined || copy.state === 'no-answer') return 'asking';
  return copy.state;
}

function noteOf(copy: ReplicaCopy, anyBehind: boolean): string {
  if (copy.mergePending)
    return `${copy.nodeId} has not received the merge yet: it still holds ${copy.versions} versions.`;
  if (copy.missing.length > 0) return `${copy.nodeId} has not received ${joinNames(copy.missing)} yet.`;
  return anyBehind ? `${copy.nodeId} has every change.` : '';
}

export function summarize(
  replicas: ReplicasView | undefined,
  cluster: ClusterView | undefined,
): ReplicasSummary {
  const ids = cluster?.nodes.map((n) => n.id) ?? replicas?.nodes.map((n) => n.nodeId) ?? [];
  const stateOf = (id: string): NodeState | undefined => cluster?.nodes.find((n) => n.id === id)?.state;
  const copyOf = (id: string): ReplicaCopy | undefined => replicas?.nodes.find((n) => n.nodeId === id);
  const read = ids
    .map((id) => ({ id, copy: copyOf(id), shows: shows(stateOf(id), copyOf(id)) }))
    .map((r) => ({ ...r, copy: r.shows === 'copy' || r.shows === 'no-copy' ? r.copy : undefined }));
  const answered = read.flatMap((r) => (r.copy === undefined ? [] : [r.copy]));
  const behind = answered.filter((c) => !c.complete);
  const cards: ReplicaCard[] = read.map((r) => ({
    nodeId: r.id,
    shows: r.shows,
    copy: r.copy,
    note: r.copy === undefined ? '' : noteOf(r.copy, behind.length > 0),
    behind: r.copy !== undefined && !r.copy.complete,
  }));
  if (answered.length === 0)
    return { agreement: 'unknown', headline: 'Asking every node for its own copy…', cards };
  const others = ids.length - answered.length;
  const rest = others === 0 ? '' : ` (${others === 1 ? 'one node does' : `${others} nodes do`} not answer)`;
  const groups = new Set(answered.map((c) => c.group));
  if (groups.size === 1) {
    const c = answered[0]!;
    const all =
      others === 0
        ? `All ${answered.length} nodes hold`
        : `${verb(
            answered.map((a) => a.nodeId),
            'holds',
            'hold',
          )}`;
    const what =
      c.versions === 0
        ? 'no copy of this cart yet'
        : c.versions === 1
          ? 'the same cart'
          : `the same ${c.versions} versions, until their merge is written back`;
    return { agreement: 'same', headline: `${all} ${what}${rest}.`, cards };
  }
  const split = cluster?.split != null;
  if (behind.length < answered.length) {
    const ids = behind.map((c) => c.nodeId);
    const why = split
      ? ' The split keeps it from them.'
      : ' Read repair and anti-entropy bring it to them within seconds.';
    return {
      agreement: 'behind',
      headline: `${verb(ids, 'has', 'have')} not received every change yet${rest}.${why}`,
      cards,
    };
  }
  const sides = [...groups].map((g) => answered.filter((c) => c.group === g).map((c) => c.nodeId));
  const apart = split
    ? 'The split keeps them apart.'
    : 'Read repair and anti-entropy bring them together within seconds.';
  const what =
    sides.length === 2
      ? `${verb(sides[0]!, 'holds', 'hold')} one version of the cart, ${joinNames(sides[1]!)} another: each has changes the other has not seen`
      : `${joinNames(answered.map((c) => c.nodeId))} hold ${sides.length} different versions of the cart`;
  return {
    agreement: 'diverged',
    headline: `The copies have diverged: ${what}${rest}. ${apart}`,
    cards,
  };
}
