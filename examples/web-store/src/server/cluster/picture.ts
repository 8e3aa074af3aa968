/**
 * One picture of the cluster from what every node reported: each node's state, the state of every
 * link, the sides of a split, and one health line. Pure. Everything the panel shows (the health
 * line, the node cards, the drawing) is read from these links, so the three cannot disagree.
 *
 * A link's state comes from facts first: a node that drops traffic to the other (blocked), an end
 * that is not up (down). Between two nodes that are up and do not block each other it is what
 * their failure detectors say: ok when both count the other up, in doubt while one still counts the
 * other down (until its next successful call). A detector that still counts a blocked or stopped
 * peer as up is "lagging": shown, never believed.
 */
import type {
  ClusterHealth,
  ClusterLink,
  LinkState,
  NodeState,
  NodeView,
  PeerLink,
} from '../../shared/api.js';
import type { NodeReport } from './probe.js';

export interface Picture {
  readonly nodes: readonly NodeView[];
  readonly links: readonly ClusterLink[];
  readonly split: string[][] | null;
  readonly health: ClusterHealth;
}

export function nodeState(r: NodeReport): NodeState {
  if (r.running === false) return 'stopped';
  return r.reachable ? 'up' : 'unreachable';
}

function linkState(a: NodeReport, b: NodeReport, states: ReadonlyMap<string, NodeState>): LinkState {
  if (a.blocks?.includes(b.id) === true || b.blocks?.includes(a.id) === true) return 'blocked';
  if (states.get(a.id) !== 'up' || states.get(b.id) !== 'up') return 'down';
  return a.thinks.get(b.id) === 'up' && b.thinks.get(a.id) === 'up' ? 'ok' : 'doubt';
}

/** Whether `observer`'s failure detector still counts `peer` as up across a blocked or down link. */
function lags(observer: NodeReport, peer: string, state: LinkState, observerState: NodeState): boolean {
  return (
    observerState === 'up' && (state === 'blocked' || state === 'down') && observer.thinks.get(peer) === 'up'
  );
}

/** Groups of nodes that no blocked link separates; more than one group is a split. */
function sides(ids: readonly string[], blocked: (a: string, b: string) => boolean): string[][] {
  const groups: string[][] = [];
  const placed = new Set<string>();
  for (const start of ids) {
    if (placed.has(start)) continue;
    const group = [start];
    placed.add(start);
    for (let i = 0; i < group.length; i++) {
      for (const other of ids) {
        if (!placed.has(other) && !blocked(group[i]!, other)) {
          placed.add(other);
          group.push(other);
        }
      }
    }
    groups.push(group.sort());
  }
  return groups;
}

const list = (ids: readonly string[]): string =>
  ids.length <= 1 ? (ids[0] ?? '') : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;

function healthOf(
  nodes: readonly NodeView[],
  links: readonly ClusterLink[],
  split: readonly string[][] | null,
): ClusterHealth {
  const parts: string[] = [];
  const notUp = nodes.filter((n) => n.state !== 'up');
  if (split !== null) parts.push(`split: ${split.map((s) => s.join(' ')).join(' | ')}`);
  for (const state of ['stopped', 'unreachable'] as const) {
    const ids = notUp.filter((n) => n.state === state).map((n) => n.id);
    if (ids.length > 0) parts.push(`${list(ids)} ${state === 'stopped' ? 'stopped' : 'not answering'}`);
  }
  const doubt = links.filter((l) => l.state === 'doubt');
  if (doubt.length > 0 && split === null && notUp.length === 0)
    parts.push(`every node answers · not yet back in touch: ${doubt.map((l) => `${l.a}–${l.b}`).join(', ')}`);
  const kind: ClusterHealth['kind'] =
    split !== null ? 'split' : notUp.length > 0 ? 'down' : doubt.length > 0 ? 'doubt' : 'ok';
  if (kind === 'down') {
    const up = nodes.filter((n) => n.state === 'up').map((n) => n.id);
    parts.push(up.length === 0 ? 'no node answers' : `${list(up)} carry on`);
  }
  return {
    kind,
    text: kind === 'ok' ? 'every node reaches every other' : parts.join(' · '),
    catchingUp: catchingUp(nodes),
  };
}

/** "n0 still counts n1 and n2 as up; n1 still counts n0 as up", or null. */
function catchingUp(nodes: readonly NodeView[]): string | null {
  const sentences = nodes.flatMap((n) => {
    const stale = n.peers.filter((p) => p.lagging).map((p) => p.id);
    return stale.length === 0 ? [] : [`${n.id} still counts ${list(stale)} as up`];
  });
  return sentences.length === 0 ? null : sentences.join('; ');
}

export function picture(reports: readonly NodeReport[]): Picture {
  const states = new Map(reports.map((r) => [r.id, nodeState(r)]));
  const links: ClusterLink[] = [];
  for (let i = 0; i < reports.length; i++) {
    for (let j = i + 1; j < reports.length; j++) {
      const [a, b] = [reports[i]!, reports[j]!].sort((x, y) => x.id.localeCompare(y.id)) as [
        NodeReport,
        NodeReport,
      ];
      const state = linkState(a, b, states);
      const lagging = [a, b]
        .filter((end) => lags(end, end === a ? b.id : a.id, state, states.get(end.id)!))
        .map((end) => end.id);
      links.push({ a: a.id, b: b.id, state, lagging });
    }
  }
  const linkOf = (x: string, y: string): ClusterLink =>
    links.find((l) => (l.a === x && l.b === y) || (l.a === y && l.b === x))!;
  const nodes: NodeView[] = reports.map((r) => {
    const state = states.get(r.id)!;
    const peers: PeerLink[] = reports
      .filter((o) => o.id !== r.id)
      .map((o) => {
        const link = linkOf(r.id, o.id);
        return {
          id: o.id,
          link: link.state,
          thinks: r.thinks.get(o.id) ?? 'unknown',
          lagging: link.lagging.includes(r.id),
        };
      });
    return {
      id: r.id,
      url: r.url,
      managed: r.managed,
      running: r.running,
      reachable: r.reachable,
      state,
      pid: state === 'up' ? r.pid : null,
      peers,
      blocks: r.blocks,
      partitions: r.partitions,
    };
  });
  const groups = sides(
    reports.map((r) => r.id),
    (a, b) => linkOf(a, b).state === 'blocked',
  );
  const split = groups.length > 1 ? groups : null;
  return { nodes, links, split, health: healthOf(nodes, links, split) };
}
