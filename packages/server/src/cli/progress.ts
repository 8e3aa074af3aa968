/**
 * Following a ring change from a terminal: every member is asked for its own inbound transfers
 * (GET /v1/status), and the total is drawn as a progress bar on a TTY or as plain lines otherwise.
 * A leave is followed past its commit, until the leaver has handed everything over.
 */
import { type DepartureLike, renderDeparture } from './departure-progress.js';

export interface TransferRow {
  partition: number;
  from: string;
  to: string;
  keysSent: number;
  progress: number;
}

export interface StatusLike {
  nodeId: string;
  ringVersion: number;
  pending: { kind: string; nodeId: string; ringVersion: number; receivers: string[]; done: string[] } | null;
  transfers: TransferRow[];
  members: { nodeId: string; http: string; status: string }[];
  ring: { owners: string[] };
  /** The asked node's own way out after a leave (absent from nodes older than this field). */
  departure?: DepartureLike | null;
}

/**
 * No change pending and none asked for: every listed member is a full member (none joining,
 * leaving or still retiring after a leave) and the ring holds only them.
 */
export function settled(s: StatusLike): boolean {
  const ids = new Set(s.members.map((m) => m.nodeId));
  return (
    s.pending === null &&
    s.members.every((m) => m.status !== 'joining' && m.status !== 'leaving' && m.status !== 'retiring') &&
    s.ring.owners.every((o) => ids.has(o))
  );
}

export type Fetch = (base: string) => Promise<StatusLike>;

export interface Summary {
  readonly label: string;
  readonly fraction: number;
  readonly keys: number;
  readonly partitionsDone: number;
  readonly partitions: number;
}

/**
 * Transfers of the whole cluster: each receiver's own live numbers; where a receiver did not
 * answer, its source's numbers (what it sent); the asked node's plan for the rest.
 */
export async function summarize(base: string, fetchStatus: Fetch): Promise<Summary | undefined> {
  const s = await fetchStatus(base);
  if (s.pending === null) return undefined;
  const rows = new Map(s.transfers.map((t) => [`${t.partition}/${t.to}`, t]));
  const received = new Map<string, TransferRow>();
  const sent = new Map<string, TransferRow>();
  const scheme = base.startsWith('https://') ? 'https' : 'http';
  await Promise.all(
    s.members.map(async (m) => {
      try {
        const theirs = await fetchStatus(`${scheme}://${m.http}`);
        for (const t of theirs.transfers) {
          const key = `${t.partition}/${t.to}`;
          if (t.to === m.nodeId) received.set(key, t);
          else if (t.from === m.nodeId && t.keysSent > 0) sent.set(key, t);
        }
      } catch {
        // an unreachable member keeps the plan's numbers
      }
    }),
  );
  for (const [key, t] of sent) rows.set(key, t);
  for (const [key, t] of received) rows.set(key, t);
  const all = [...rows.values()];
  const fraction = all.length === 0 ? 1 : all.reduce((a, t) => a + t.progress, 0) / all.length;
  return {
    label: `${s.pending.kind} ${s.pending.nodeId} -> ring v${s.pending.ringVersion}`,
    fraction,
    keys: all.reduce((a, t) => a + t.keysSent, 0),
    partitionsDone: all.filter((t) => t.progress >= 1).length,
    partitions: all.length,
  };
}

export function renderBar(s: Summary, width = 30): string {
  const filled = Math.round(s.fraction * width);
  const pct = Math.floor(s.fraction * 100);
  return `${s.label}  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${pct}%  ${s.partitionsDone}/${s.partitions} partitions, ${s.keys} keys`;
}

/**
 * Follows the change until the ring settles (for a leave asked of the leaver: until it has handed
 * everything over and left); on a TTY one redrawn bar, else a line per change.
 */
export async function follow(
  base: string,
  fetchStatus: Fetch,
  out: NodeJS.WriteStream,
  deadlineMs: number,
): Promise<boolean> {
  let last = '';
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const summary = await summarize(base, fetchStatus).catch(() => undefined);
    const own = await fetchStatus(base).catch(() => undefined);
    const departure = own?.departure ?? undefined;
    if (summary === undefined && own !== undefined && settled(own)) {
      const closing =
        departure?.phase === 'left' ? renderDeparture(own.nodeId, departure) : 'ring change committed';
      out.write(out.isTTY ? `\r\x1b[2K${closing}\n` : `${closing}\n`);
      return true;
    }
    const line =
      summary !== undefined
        ? renderBar(summary)
        : departure === undefined || own === undefined
          ? undefined
          : renderDeparture(own.nodeId, departure);
    if (line !== undefined) {
      if (out.isTTY) out.write(`\r\x1b[2K${line}`);
      else if (line !== last) out.write(`${line}\n`);
      last = line;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (out.isTTY) out.write('\n');
  return false;
}
