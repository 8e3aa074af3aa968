/**
 * `tessera admin status`, per node: keys, tombstones and bytes stored, hints held, and whether it
 * drains, each node asked for its own `/v1/status` (a short timeout; `unreachable` otherwise).
 */

import { renderTable } from './table.js';

export interface NodeFigures {
  readonly stored?: {
    keys: number;
    tombstones: number;
    bytes: number;
    partitionsCounted: number;
    partitionCount: number;
  };
  readonly hintsHeld?: { count: number; bytes: number };
  readonly drain?: { phase: string };
}

export type FetchFigures = (address: string) => Promise<NodeFigures>;

/** How long a node has to answer before it is shown `unreachable`. */
export const FIGURES_TIMEOUT_MS = 2_000;

/** Each member's figures, asked in parallel; `unreachable` for one that does not answer. */
export async function gatherFigures(
  members: readonly { nodeId: string; http: string }[],
  fetchAt: FetchFigures,
): Promise<Map<string, NodeFigures | 'unreachable'>> {
  const answers = await Promise.all(
    members.map(async (m) => [m.nodeId, await fetchAt(m.http).catch(() => 'unreachable' as const)] as const),
  );
  return new Map(answers);
}

export function renderFigures(figures: ReadonlyMap<string, NodeFigures | 'unreachable'>): string {
  const header = ['NODE', 'KEYS', 'TOMBSTONES', 'BYTES', 'HINTS', 'DRAIN'];
  const rows = [...figures].map(([nodeId, f]) => {
    if (f === 'unreachable') return [nodeId, 'unreachable', '', '', '', ''];
    const s = f.stored;
    // A count over only part of the partitions (just after a start) is a lower bound.
    const partial = s !== undefined && s.partitionsCounted < s.partitionCount ? '+' : '';
    return [
      nodeId,
      s === undefined ? '?' : `${s.keys}${partial}`,
      s === undefined ? '?' : `${s.tombstones}${partial}`,
      s === undefined ? '?' : `${formatBytes(s.bytes)}${partial}`,
      f.hintsHeld === undefined ? '?' : `${f.hintsHeld.count} (${formatBytes(f.hintsHeld.bytes)})`,
      f.drain === undefined || f.drain.phase === 'serving' ? '-' : f.drain.phase,
    ];
  });
  return [...renderTable(header, rows), ''].join('\n');
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
