/**
 * The soak's memory verdict: does a node's heap floor, RSS or anonymous RSS rise from the first
 * full window to the last by more than GROWTH_SHARE and GROWTH_BYTES_MIN. A warm-up (caches
 * filling in the first minutes) rises that way too; the same comparison from the middle full
 * window to the last is given beside it for information: a leak rises in both halves, a warm-up
 * in the first only.
 */
/** What the rule reads of a node's window (soak-minutes.ts `SoakNodeMinute` is one). */
export interface MemoryRow {
  readonly minute: number;
  readonly node: string;
  readonly heapUsedMinBytes: number;
  readonly rssMaxBytes: number;
  readonly anonMaxBytes: number;
}

/** Memory grew when the last full window's figure exceeds the first's by this share and GROWTH_BYTES_MIN. */
export const GROWTH_SHARE = 0.1;
export const GROWTH_BYTES_MIN = 16 * 1024 * 1024;
/** Full windows needed for the later half to hold two of them. */
const LATER_FULL_WINDOWS_MIN = 4;

export interface NodeGrowth {
  readonly node: string;
  /** [first full window, last full window] of the heap floor, RSS and anonymous RSS maxima. */
  readonly heapFloorBytes: readonly [number, number];
  readonly rssMaxBytes: readonly [number, number];
  readonly anonMaxBytes: readonly [number, number];
  readonly grew: boolean;
}

/** Growth over the later half of the full windows: from window `fromMinute` to the last. */
export interface LaterGrowth {
  readonly fromMinute: number;
  readonly nodes: readonly NodeGrowth[];
  readonly grew: boolean;
}

/** Per node: the first and the last full window's heap floor, RSS and anonymous RSS. */
export function memoryGrowth(nodes: readonly MemoryRow[], fullMinutes: ReadonlySet<number>): NodeGrowth[] {
  const out: NodeGrowth[] = [];
  for (const node of [...new Set(nodes.map((n) => n.node))].sort()) {
    const rows = nodes.filter((n) => n.node === node && fullMinutes.has(n.minute));
    const first = rows[0];
    const last = rows.at(-1);
    if (first === undefined || last === undefined || first === last) continue;
    const heapFloorBytes = [first.heapUsedMinBytes, last.heapUsedMinBytes] as const;
    const rssMaxBytes = [first.rssMaxBytes, last.rssMaxBytes] as const;
    const anonMaxBytes = [first.anonMaxBytes, last.anonMaxBytes] as const;
    const grew = [heapFloorBytes, rssMaxBytes, anonMaxBytes].some(([a, b]) => grewBeyond(a, b));
    out.push({ node, heapFloorBytes, rssMaxBytes, anonMaxBytes, grew });
  }
  return out;
}

/** True when `after` exceeds `before` by GROWTH_SHARE of it and by GROWTH_BYTES_MIN; unknown is no growth. */
export function grewBeyond(before: number, after: number): boolean {
  if (!Number.isFinite(before) || !Number.isFinite(after)) return false;
  return after - before > Math.max(GROWTH_BYTES_MIN, before * GROWTH_SHARE);
}

/** memoryGrowth from the middle full window on; undefined with fewer than LATER_FULL_WINDOWS_MIN. */
export function laterGrowth(
  nodes: readonly MemoryRow[],
  full: readonly { readonly minute: number }[],
): LaterGrowth | undefined {
  if (full.length < LATER_FULL_WINDOWS_MIN) return undefined;
  const later = full.slice(Math.floor(full.length / 2));
  const growth = memoryGrowth(nodes, new Set(later.map((m) => m.minute)));
  if (growth.length === 0) return undefined;
  return { fromMinute: later[0]!.minute, nodes: growth, grew: growth.some((g) => g.grew) };
}
