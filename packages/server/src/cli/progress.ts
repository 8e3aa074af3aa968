/**
 * Following a ring change from a terminal: every member is asked for its own inbound transfers
 * (GET /v1/status), and the total is drawn as a progress bar on a TTY or as plain lines otherwise.
 */

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
}

/** No change pending and none asked for: every listed member is a full member and the ring holds only them. */
export function settled(s: StatusLike): boolean {
  const ids = new Set(s.members.map((m) => m.nodeId));
  return (
    s.pending === null &&
    s.members.every((m) => m.status !== 'joining' && m.status !== 'leaving') &&
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

/** Transfers of the whole cluster: each receiver's own live numbers, the asked node's plan for the rest. */
export async function summarize(base: string, fetchStatus: Fetch): Promise<Summary | undefined> {
  const s = await fetchStatus(base);
  if (s.pending === null) return undefined;
  const rows = new Map(s.transfers.map((t) => [`${t.partition}/${t.to}`, t]));
  await Promise.all(
    s.members.map(async (m) => {
      try {
        const theirs = await fetchStatus(`http://${m.http}`);
        for (const t of theirs.transfers) if (t.to === m.nodeId) rows.set(`${t.partition}/${t.to}`, t);
      } catch {
        // an unreachable member keeps the plan's numbers
      }
    }),
  );
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

/** Follows the change until the ring settles; on a TTY one redrawn bar, else a line per change. */
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
    const done = await fetchStatus(base).then(settled, () => false);
    if (summary === undefined && done) {
      out.write(out.isTTY ? '\r\x1b[2Kring change committed\n' : 'ring change committed\n');
      return true;
    }
    if (summary !== undefined) {
      const line = renderBar(summary);
      if (out.isTTY) out.write(`\r\x1b[2K${line}`);
      else if (line !== last) out.write(`${line}\n`);
      last = line;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (out.isTTY) out.write('\n');
  return false;
}
