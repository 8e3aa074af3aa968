/**
 * Asks one node what it reports: its status (GET /v1/status: its pid, how its failure detector
 * sees every member, the quorum) and the peers it drops traffic to (GET /v1/admin/faults). A node
 * whose process the store knows to be stopped is not asked.
 */
import type { NodeEntry } from './directory.js';

const PROBE_TIMEOUT_MS = 1_000;

/** What one node reported, or did not. */
export interface NodeReport {
  readonly id: string;
  readonly url: string;
  readonly managed: boolean;
  /** For a managed node: whether its process runs; null otherwise. */
  readonly running: boolean | null;
  /** Its HTTP API answered /v1/status. */
  readonly reachable: boolean;
  /** The pid it reported. */
  readonly pid: number | null;
  /** Its failure detector's verdict on every other member it knows. */
  readonly thinks: ReadonlyMap<string, 'up' | 'down'>;
  /** Peers it drops traffic to; null when fault injection is off or it did not answer. */
  readonly blocks: readonly string[] | null;
  readonly partitions: number | null;
  readonly quorum: { readonly n: number; readonly r: number; readonly w: number } | null;
}

interface StatusBody {
  readonly pid?: unknown;
  readonly n?: unknown;
  readonly r?: unknown;
  readonly w?: unknown;
  readonly members?: readonly { nodeId?: unknown; status?: unknown; partitions?: unknown }[];
}

async function getJson(url: string): Promise<{ status: number; body: unknown } | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  } catch {
    return undefined;
  }
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export async function probe(node: NodeEntry): Promise<NodeReport> {
  const running = node.process === undefined ? null : node.process.running;
  const [status, faults] =
    running === false
      ? [undefined, undefined]
      : await Promise.all([getJson(`${node.url}/v1/status`), getJson(`${node.url}/v1/admin/faults`)]);
  const body = status?.status === 200 ? (status.body as StatusBody | undefined) : undefined;
  const members = Array.isArray(body?.members) ? body.members : [];
  const thinks = new Map<string, 'up' | 'down'>();
  for (const m of members) {
    // joining and leaving members are reachable members too; only "down" is the detector's verdict.
    if (typeof m.nodeId === 'string' && m.nodeId !== node.id)
      thinks.set(m.nodeId, m.status === 'down' ? 'down' : 'up');
  }
  const self = members.find((m) => m.nodeId === node.id);
  const blockPeers = (faults?.body as { blockPeers?: unknown } | undefined)?.blockPeers;
  return {
    id: node.id,
    url: node.url,
    managed: node.process !== undefined,
    running,
    reachable: body !== undefined,
    pid: body !== undefined && isNumber(body.pid) ? body.pid : null,
    thinks,
    blocks:
      body !== undefined && faults?.status === 200 && Array.isArray(blockPeers)
        ? blockPeers.filter((p): p is string => typeof p === 'string')
        : null,
    partitions: isNumber(self?.partitions) ? self.partitions : null,
    quorum:
      body !== undefined && isNumber(body.n) && isNumber(body.r) && isNumber(body.w)
        ? { n: body.n, r: body.r, w: body.w }
        : null,
  };
}
