/**
 * One node's own stored copy of a key: `GET /v1/kv/:key?local=true`, which answers from the node's
 * storage without asking the other replicas (no quorum, possibly stale: that is the point here).
 * A node whose process the store knows to be stopped is not asked.
 */
import type { NodeEntry } from './directory.js';

const LOCAL_READ_TIMEOUT_MS = 1_000;

export interface LocalSibling {
  readonly value: unknown;
  readonly lastModified: string;
}

/** What the node answered: its siblings (none: it holds no live value), or undefined without an answer. */
export interface LocalCopy {
  readonly nodeId: string;
  readonly siblings: readonly LocalSibling[] | undefined;
  readonly readAt: number;
}

function siblingsOf(body: unknown): LocalSibling[] | undefined {
  const raw = (body as { siblings?: unknown } | undefined)?.siblings;
  if (!Array.isArray(raw)) return undefined;
  return raw.map((s: { value?: unknown; lastModified?: unknown }) => ({
    value: s.value,
    lastModified: typeof s.lastModified === 'string' ? s.lastModified : '',
  }));
}

export async function localRead(node: NodeEntry, key: string): Promise<LocalCopy> {
  const readAt = Date.now();
  if (node.process !== undefined && !node.process.running)
    return { nodeId: node.id, siblings: undefined, readAt };
  try {
    const res = await fetch(`${node.url}/v1/kv/${encodeURIComponent(key)}?local=true&missing=ok`, {
      signal: AbortSignal.timeout(LOCAL_READ_TIMEOUT_MS),
    });
    const body: unknown = await res.json().catch(() => undefined);
    return { nodeId: node.id, siblings: res.ok ? siblingsOf(body) : undefined, readAt };
  } catch {
    return { nodeId: node.id, siblings: undefined, readAt };
  }
}
