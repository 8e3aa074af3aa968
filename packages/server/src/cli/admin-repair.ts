/** `tessera admin repair [--partition P]`: anti-entropy now, on the node asked (POST /v1/admin/repair). */
import { TesseraError } from '@tessera/core';

export type AdminCall = (
  method: string,
  path: string,
  body?: unknown,
  timeoutMs?: number,
) => Promise<unknown>;

interface RepairAnswer {
  partitions: number;
  exchanges: Record<string, number>;
  keysPulled: number;
  keysPushed: number;
  unfinished: { partition: number; peer: string; outcome: string }[];
  elapsedMs: number;
}

/** The node's own deadline for the whole repair; the call waits a little longer. */
const REPAIR_TIMEOUT_MS = 60_000;

export async function runRepair(
  call: AdminCall,
  partition: string | undefined,
  json: boolean,
): Promise<number> {
  const body: { partition?: number; timeoutMs: number } = { timeoutMs: REPAIR_TIMEOUT_MS };
  if (partition !== undefined) {
    if (!/^\d{1,9}$/.test(partition))
      throw new TesseraError(
        'BAD_REQUEST',
        `--partition must be a partition number (0 or more), not "${partition}".`,
      );
    body.partition = Number(partition);
  }
  const answer = (await call('POST', '/v1/admin/repair', body, REPAIR_TIMEOUT_MS + 10_000)) as RepairAnswer;
  process.stdout.write(json ? `${JSON.stringify(answer, null, 2)}\n` : renderRepair(answer));
  return answer.unfinished.length === 0 ? 0 : 1;
}

export function renderRepair(a: RepairAnswer): string {
  const exchanges = Object.entries(a.exchanges)
    .map(([outcome, count]) => `${count} ${outcome}`)
    .join(', ');
  const lines = [
    `repair: ${a.partitions} partition(s) in ${(a.elapsedMs / 1000).toFixed(1)} s; exchanges: ${exchanges || 'none'}; ` +
      `${a.keysPulled} key(s) pulled here, ${a.keysPushed} pushed to replicas`,
  ];
  for (const u of a.unfinished.slice(0, 20))
    lines.push(`  not in sync: partition ${u.partition} with ${u.peer} (${u.outcome})`);
  if (a.unfinished.length > 20) lines.push(`  … and ${a.unfinished.length - 20} more`);
  if (a.unfinished.length > 0)
    lines.push('Some replicas were unreachable or the deadline passed: check them and run the repair again.');
  return `${lines.join('\n')}\n`;
}
