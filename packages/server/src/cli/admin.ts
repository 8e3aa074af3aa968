/** `tessera admin …`: the admin API from a terminal. */
import { parseArgs } from 'node:util';
import { ERROR_CODES, type ErrorCode, type Ring, replicasOf, TesseraError } from '@tessera/core';
import { readPem } from '../security/pem.js';
import { readSecrets } from '../security/secrets.js';
import { runDrain } from './admin-drain.js';
import { FIGURES_TIMEOUT_MS, gatherFigures, type NodeFigures, renderFigures } from './admin-figures.js';
import { runRepair } from './admin-repair.js';
import { departureLines } from './departure-progress.js';
import { type HttpAnswer, httpCall } from './http-call.js';
import { follow, renderBar, type StatusLike, summarize } from './progress.js';
import { runSnapshot } from './snapshot.js';
import { renderTable } from './table.js';

interface StatusBody {
  nodeId: string;
  clusterId: string;
  n: number;
  r: number;
  w: number;
  partitionCount: number;
  ringVersion: number;
  members: { nodeId: string; http: string; peer: string; status: string; partitions: number }[];
  ring?: Ring;
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
      // Waiting is the default (a leave: until the node has handed everything over); --wait says so.
      wait: { type: 'boolean', default: false },
      'no-wait': { type: 'boolean', default: false },
      'token-file': { type: 'string' },
      ca: { type: 'string' },
      out: { type: 'string' },
      partition: { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
  });
  if (values.wait && values['no-wait'])
    throw new TesseraError('BAD_REQUEST', 'Pass --wait or --no-wait, not both.');
  const base = values.node.replace(/\/+$/, '');
  const auth = await adminAuth(values['token-file'], values.ca);
  const call = (method: string, path: string, body?: unknown, timeoutMs?: number): Promise<unknown> =>
    callNode(base, method, path, auth, body, timeoutMs);
  // Each member asked at its own address (summarize), not always the node given.
  const fetchStatus = async (at: string = base): Promise<StatusLike> =>
    (await callNode(at, 'GET', '/v1/status', auth)) as StatusLike;
  const wait = async (): Promise<number> =>
    (await follow(base, fetchStatus, process.stdout, FOLLOW_MS)) ? 0 : 1;
  switch (sub) {
    case 'status': {
      const body = (await call('GET', '/v1/status')) as StatusBody;
      if (values.json) {
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        return 0;
      }
      process.stdout.write(renderStatus(body));
      const summary = await summarize(base, fetchStatus);
      if (summary !== undefined) process.stdout.write(`transfers: ${renderBar(summary)}\n`);
      const scheme = base.startsWith('https://') ? 'https' : 'http';
      const fetchAt = async (address: string) =>
        (await callNode(`${scheme}://${address}`, 'GET', '/v1/status', auth)) as StatusLike;
      for (const line of await departureLines(body, fetchAt)) process.stdout.write(`${line}\n`);
      const figuresAt = async (address: string) =>
        (await callNode(
          `${scheme}://${address}`,
          'GET',
          '/v1/status',
          auth,
          undefined,
          FIGURES_TIMEOUT_MS,
        )) as NodeFigures;
      process.stdout.write(`\n${renderFigures(await gatherFigures(body.members, figuresAt))}`);
      return 0;
    }
    case 'join':
      if (values.seed === undefined)
        throw new TesseraError('BAD_REQUEST', 'admin join needs --seed HOST:PORT.');
      print(await call('POST', '/v1/admin/join', { seed: values.seed }));
      return values['no-wait'] ? 0 : await wait();
    case 'leave':
      print(await call('POST', '/v1/admin/leave', {}));
      return values['no-wait'] ? 0 : await wait();
    case 'remove':
      if (values['node-id'] === undefined)
        throw new TesseraError('BAD_REQUEST', 'admin remove needs --node-id ID.');
      print(await call('POST', '/v1/admin/remove', { nodeId: values['node-id'] }));
      return values['no-wait'] ? 0 : await wait();
    case 'snapshot':
      return runSnapshot(call, values.out, values.json);
    case 'repair':
      return runRepair(call, values.partition, values.json);
    case 'drain':
      return runDrain(call, values['timeout-ms']);
    default:
      throw new TesseraError(
        'BAD_REQUEST',
        `Unknown admin command "${sub}". Use status, join, leave, remove, snapshot, repair or drain.`,
      );
  }
}

interface AdminAuth {
  readonly token?: string | undefined;
  readonly ca?: Buffer | undefined;
}

/** The admin token (--token-file, else TESSERA_ADMIN_TOKEN) and the CA (--ca, else TESSERA_CA). */
async function adminAuth(tokenFile: string | undefined, caFile: string | undefined): Promise<AdminAuth> {
  const { adminToken } = await readSecrets({ adminToken: tokenFile }, process.env);
  const ca = caFile ?? process.env.TESSERA_CA;
  return {
    token: adminToken,
    ca: ca === undefined || ca === '' ? undefined : readPem(ca, '--ca'),
  };
}

async function callNode(
  base: string,
  method: string,
  path: string,
  auth: AdminAuth,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<unknown> {
  let res: HttpAnswer;
  try {
    res = await httpCall(`${base}${path}`, { method, body, ...auth, timeoutMs });
  } catch (err) {
    throw unreachable(base, err);
  }
  if (res.status >= 400) throw answeredError(res);
  return res.body;
}

/** The node's own error, as `CODE: message` (its code when it is one of ours). */
export function answeredError(res: HttpAnswer): TesseraError {
  const error = (res.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${res.status}`;
  const code =
    typeof error?.code === 'string' && error.code in ERROR_CODES ? (error.code as ErrorCode) : undefined;
  return new TesseraError(
    code ?? 'BAD_RESPONSE',
    code === undefined ? `The node answered HTTP ${res.status}: ${message}` : message,
  );
}

/** A call that got no answer; plain http:// to a TLS port only ever says "socket hang up". */
export function unreachable(base: string, err: unknown): TesseraError {
  const reason = err instanceof Error ? err.message : String(err);
  const tlsHint =
    base.startsWith('http://') && /socket hang up|ECONNRESET/.test(reason)
      ? ' The node may serve HTTPS: use --node https://… (and --ca FILE).'
      : ' Is the node running? Pass --node URL (and --ca FILE for https).';
  return new TesseraError('NODE_UNREACHABLE', `Cannot reach ${base} (${reason}).${tlsHint}`);
}

function print(body: unknown): number {
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}

/**
 * Effective ownership: the share of partitions each node is one of the N replicas of (what it
 * stores), which the primary partition counts alone do not show.
 */
export function replicaShares(ring: Ring, n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let p = 0; p < ring.partitionCount; p++) {
    for (const node of replicasOf(ring, p, n)) counts.set(node, (counts.get(node) ?? 0) + 1);
  }
  return new Map([...counts].map(([node, c]) => [node, c / ring.partitionCount]));
}

export function renderStatus(s: StatusBody): string {
  const shares = s.ring === undefined ? undefined : replicaShares(s.ring, s.n);
  const share = (node: string): string =>
    shares === undefined ? '?' : `${Math.round((shares.get(node) ?? 0) * 100)}%`;
  const rows = s.members.map((m) => [
    m.nodeId,
    m.status,
    String(m.partitions),
    share(m.nodeId),
    m.http,
    m.peer,
  ]);
  const header = ['NODE', 'STATUS', 'PARTITIONS', 'REPLICA OF', 'HTTP', 'PEER'];
  return [
    `cluster ${s.clusterId}  (as seen by ${s.nodeId})`,
    `N=${s.n} R=${s.r} W=${s.w}  partitions=${s.partitionCount}  ring version ${s.ringVersion}`,
    '',
    ...renderTable(header, rows),
    '',
  ].join('\n');
}
