/**
 * The cluster as the panel shows it: every node's own view (GET /v1/status), which peers it drops
 * traffic to (GET /v1/admin/faults), and from that the links between nodes and the sides of a
 * split. Many tabs poll it, so one answer is shared for a short while.
 */
import type { ClusterView, LinkState, NodeView } from '../../shared/api.js';
import type { NodeDirectory, NodeEntry } from './directory.js';

const PROBE_TIMEOUT_MS = 1_000;
const CACHE_MS = 400;

interface StatusBody {
  readonly n?: number;
  readonly r?: number;
  readonly w?: number;
  readonly members?: readonly { nodeId?: string; status?: string; partitions?: number }[];
}

async function getJson(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  } catch {
    return undefined;
  }
}

async function probe(node: NodeEntry): Promise<{ view: NodeView; quorum: ClusterView['quorum'] }> {
  const running = node.process === undefined ? null : node.process.running;
  const [status, faults] =
    running === false
      ? [undefined, undefined]
      : await Promise.all([getJson(`${node.url}/v1/status`), getJson(`${node.url}/v1/admin/faults`)]);
  const body = status?.status === 200 ? (status.body as StatusBody) : undefined;
  const members = body?.members ?? [];
  const self = members.find((m) => m.nodeId === node.id);
  const blockPeers = (faults?.body as { blockPeers?: unknown } | undefined)?.blockPeers;
  const view: NodeView = {
    id: node.id,
    url: node.url,
    managed: node.process !== undefined,
    running,
    pid: node.process?.pid ?? null,
    reachable: body !== undefined,
    sees: members
      .filter((m) => m.nodeId !== node.id && typeof m.nodeId === 'string')
      .map((m) => ({ id: m.nodeId as string, status: m.status ?? 'unknown' })),
    blocks:
      faults?.status === 200 && Array.isArray(blockPeers)
        ? blockPeers.filter((p): p is string => typeof p === 'string')
        : null,
    partitions: typeof self?.partitions === 'number' ? self.partitions : null,
  };
  const quorum =
    typeof body?.n === 'number' && typeof body.r === 'number' && typeof body.w === 'number'
      ? { n: body.n, r: body.r, w: body.w }
      : null;
  return { view, quorum };
}

function linkState(a: NodeView, b: NodeView): LinkState {
  if (a.blocks?.includes(b.id) === true || b.blocks?.includes(a.id) === true) return 'blocked';
  if (!a.reachable || !b.reachable) return 'unknown';
  return 'ok';
}

/** Groups of nodes that no blocked link separates; more than one group is a split. */
function sides(nodes: readonly NodeView[], blocked: (a: string, b: string) => boolean): string[][] {
  const groups: string[][] = [];
  const placed = new Set<string>();
  for (const start of nodes) {
    if (placed.has(start.id)) continue;
    const group = [start.id];
    placed.add(start.id);
    for (let i = 0; i < group.length; i++) {
      for (const other of nodes) {
        if (!placed.has(other.id) && !blocked(group[i]!, other.id)) {
          placed.add(other.id);
          group.push(other.id);
        }
      }
    }
    groups.push(group.sort());
  }
  return groups;
}

export class ClusterStatus {
  private cached: { at: number; view: Promise<ClusterView> } | undefined;

  constructor(private readonly nodes: NodeDirectory) {}

  view(): Promise<ClusterView> {
    const now = Date.now();
    if (this.cached === undefined || now - this.cached.at > CACHE_MS) {
      this.cached = { at: now, view: this.load() };
    }
    return this.cached.view;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private async load(): Promise<ClusterView> {
    const probes = await Promise.all(this.nodes.list().map(probe));
    const nodes = probes.map((p) => p.view);
    const links: { a: string; b: string; state: LinkState }[] = [];
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        links.push({ a: nodes[i]!.id, b: nodes[j]!.id, state: linkState(nodes[i]!, nodes[j]!) });
      }
    }
    const isBlocked = (a: string, b: string): boolean =>
      links.some((l) => l.state === 'blocked' && ((l.a === a && l.b === b) || (l.a === b && l.b === a)));
    const groups = sides(nodes, isBlocked);
    return {
      nodes,
      links,
      split: groups.length > 1 ? groups : null,
      canControlProcesses: nodes.some((n) => n.managed),
      faultInjection: nodes.some((n) => n.blocks !== null),
      quorum: probes.find((p) => p.quorum !== null)?.quorum ?? null,
    };
  }
}
