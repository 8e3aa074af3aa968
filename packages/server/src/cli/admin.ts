/** `tessera admin …`: the admin API from a terminal. */
import { parseArgs } from 'node:util';
import { TesseraError } from '@tessera/core';
import { follow, renderBar, type StatusLike, summarize } from './progress.js';

interface StatusBody {
  nodeId: string;
  clusterId: string;
  n: number;
  r: number;
  w: number;
  partitionCount: number;
  ringVersion: number;
  members: { nodeId: string; http: string; peer: string; status: string; partitions: number }[];
  pending: StatusLike['pending'];
  transfers: StatusLike['transfers'];
}

/** How long join, leave and remove follow the ring change before returning. */
const FOLLOW_MS = 10 * 60_000;

export async function runAdmin(sub: string, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      node: { type: 'string', default: 'http://127.0.0.1:7000' },
      seed: { type: 'string' },
      'node-id': { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-wait': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const base = values.node.replace(/\/+$/, '');
  switch (sub) {
    case 'status': {
      const body = (await call(base, 'GET', '/v1/status')) as StatusBody;
      if (values.json) {
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return 0;
      }
      process.stdout.write(renderStatus(body));
      const summary = await summarize(base, fetchStatus);
      if (summary !== undefined) process.stdout.write(`transfers: ${renderBar(summary)}\n`);
      return 0;
    }
    case 'join':
      if (values.seed === undefined)
        throw new TesseraError('BAD_REQUEST', 'admin join needs --seed HOST:PORT.');
      print(await call(base, 'POST', '/v1/admin/join', { seed: values.seed }));
      return values['no-wait'] ? 0 : await wait(base);
    case 'leave':
      print(await call(base, 'POST', '/v1/admin/leave', {}));
      return values['no-wait'] ? 0 : await wait(base);
    case 'remove':
      if (values['node-id'] === undefined)
        throw new TesseraError('BAD_REQUEST', 'admin remove needs --node-id ID.');
      print(await call(base, 'POST', '/v1/admin/remove', { nodeId: values['node-id'] }));
      return values['no-wait'] ? 0 : await wait(base);
    default:
      throw new TesseraError(
        'BAD_REQUEST',
        `Unknown admin command "${sub}". Use status, join, leave or remove.`,
      );
  }
}

async function call(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new TesseraError(
      'PEER_UNAVAILABLE',
      `Cannot reach ${base} (${err instanceof Error ? err.message : String(err)}). Is the node running? Pass --node URL.`,
    );
  }
  const parsed: unknown = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } }).error;
    throw new TesseraError(
      'BAD_REQUEST',
      `${error?.code ?? res.status}: ${error?.message ?? res.statusText}`,
    );
  }
  return parsed;
}

const fetchStatus = async (base: string): Promise<StatusLike> =>
  (await call(base, 'GET', '/v1/status')) as StatusLike;

/** Follows the ring change the call started until it commits. */
async function wait(base: string): Promise<number> {
  return (await follow(base, fetchStatus, process.stdout, FOLLOW_MS)) ? 0 : 1;
}

function print(body: unknown): number {
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

function renderStatus(s: StatusBody): string {
  const rows = s.members.map((m) => [m.nodeId, m.status, String(m.partitions), m.http, m.peer]);
  const header = ['NODE', 'STATUS', 'PARTITIONS', 'HTTP', 'PEER'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [
    `cluster ${s.clusterId}  (as seen by ${s.nodeId})`,
    `N=${s.n} R=${s.r} W=${s.w}  partitions=${s.partitionCount}  ring version ${s.ringVersion}`,
    '',
    line(header),
    ...rows.map(line),
    '',
  ].join('\n');
}
