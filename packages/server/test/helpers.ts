/** Helpers for black-box tests against real node processes on loopback. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Dispatcher, request } from 'undici';
import { freePortBlock } from '../src/cli/free-ports.js';
import { LocalNode, localNodeSpecs } from '../src/cli/local-cluster.js';

export { freePortBlock };

/** Tests run the `tessera` users run: the bundled CLI, the package's bin (`pnpm test` builds it first). */
export const DIST_CLI = fileURLToPath(new URL('../dist/bin/main.js', import.meta.url));

/** Runs `tessera ARGS` to its exit: its exit code and its stdout and stderr together. */
export async function cli(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [DIST_CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface TestCluster {
  readonly nodes: LocalNode[];
  readonly dir: string;
  destroy(): Promise<void>;
}

export async function startCluster(count: number, extraArgs: string[] = []): Promise<TestCluster> {
  // Ports are checked free just before use; another process may still take one in between, so a
  // start that fails on a taken port is retried on fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(count, extraArgs);
    } catch (err) {
      if (attempt >= 3 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function startClusterOnce(count: number, extraArgs: string[]): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-test-'));
  const base = await freePortBlock(2 * count);
  const specs = localNodeSpecs({
    nodes: count,
    dir,
    httpPort: base,
    peerPort: base + count,
    extraArgs: ['--log-level', 'warn', ...extraArgs],
  });
  const nodes = specs.map((s) => new LocalNode(s, DIST_CLI));
  const destroy = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const node of nodes) await node.start();
    // Every node must know the full, settled ring before tests write.
    await waitForSettledRing(nodes, count, 30_000);
  } catch (err) {
    await destroy();
    throw err;
  }
  return { nodes, dir, destroy };
}

export interface StatusBody {
  nodeId: string;
  ringVersion: number;
  ring: { owners: string[] };
  members: { nodeId: string; status: string; partitions: number }[];
  pending: unknown;
  transfers: { partition: number; from: string; to: string; keysSent: number; progress: number }[];
  strong: { recovering: boolean; sweep: { settled: number; cancelled: number; failed: number } };
}

export async function status(base: string): Promise<StatusBody> {
  const res = await request(`${base}/v1/status`);
  return (await res.body.json()) as StatusBody;
}

/** Waits until every node sees `count` full members, no ring change pending, and the same ring. */
export async function waitForSettledRing(
  nodes: readonly { url: string }[],
  count: number,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => {
      const all = await Promise.all(nodes.map((n) => status(n.url)));
      const owners = all[0]!.ring.owners.join(',');
      return all.every(
        (s) =>
          s.members.length === count &&
          s.members.every((m) => m.status !== 'joining' && m.status !== 'leaving' && m.partitions > 0) &&
          s.pending === null &&
          new Set(s.ring.owners).size === count &&
          s.ring.owners.join(',') === owners,
      );
    },
    timeoutMs,
    `every node sees the same settled ring of ${count} members`,
  );
}

/** Polls `check` until it returns true, or fails with `what` after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting until ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`,
  );
}

export interface Reply {
  status: number;
  body: Record<string, unknown>;
  /** The body as sent, for what parsing would change (a number past 2^53, spacing). */
  text: string;
}

/**
 * One HTTP call; the body is JSON unless `raw` is given. Through undici's `request` on its keep-alive
 * pool: about half the client CPU per call of `fetch`, and the suite makes tens of thousands.
 */
export async function http(
  base: string,
  method: string,
  path: string,
  options: { json?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  const res = await request(`${base}${path}`, {
    method: method as Dispatcher.HttpMethod,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.body.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.statusCode, body: parsed, text };
}

/**
 * A PUT sent right after the nodes `killed` were killed. Sent before the node forwarding it saw its
 * connection to one of them close, the forward fails as a call cut mid-way does: it may have been
 * applied, so it is answered 503, not coordinated a second time (docs/api.md). That failure marks
 * the node down, so the PUT is sent again (it was not applied: the node was dead before it).
 * Any other answer is returned as it is.
 */
export async function putAfterKill(
  base: string,
  path: string,
  json: unknown,
  killed: readonly string[],
): Promise<Reply> {
  let reply = await http(base, 'PUT', path, { json });
  // Each such failure marks one killed node down: at most one more try per killed node.
  for (let tries = 0; tries < killed.length && cutByKill(reply, killed); tries++)
    reply = await http(base, 'PUT', path, { json });
  return reply;
}

function cutByKill(reply: Reply, killed: readonly string[]): boolean {
  if (reply.status !== 503) return false;
  const error = reply.body.error as { code?: string; message?: string; details?: { peer?: string } };
  return (
    error?.code === 'PEER_UNAVAILABLE' &&
    killed.includes(error.details?.peer ?? '') &&
    /may have been applied/.test(error.message ?? '')
  );
}

export function kvPath(key: string, query = ''): string {
  return `/v1/kv/${encodeURIComponent(key)}${query}`;
}

export type SiblingBody = {
  key: string;
  context: string;
  siblings: { value: unknown; lastModified: string }[];
};

/** Writes a JSON config file for `tessera start --config` and returns its path. */
export async function configFile(settings: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-config-'));
  const path = join(dir, 'config.json');
  await writeFile(path, JSON.stringify(settings));
  return path;
}

export async function preferenceList(base: string, key: string): Promise<string[]> {
  const res = await http(base, 'GET', `/v1/preference-list/${encodeURIComponent(key)}`);
  return res.body.nodes as string[];
}

export async function localValues(base: string, key: string): Promise<unknown[] | undefined> {
  const res = await http(base, 'GET', kvPath(key, '?local=true'));
  if (res.status === 404) return undefined;
  return (res.body as unknown as SiblingBody).siblings.map((s) => s.value);
}

/**
 * Stops node `index` (kill -9, or SIGTERM when `clean`), optionally empties its data dir, and starts
 * it again under the same node id and addresses; the new process replaces it in `cluster.nodes`.
 * `extraArgs` are appended to the cluster's (a later `--config` replaces an earlier one).
 */
export async function restartNode(
  cluster: TestCluster,
  index: number,
  options: { wipe?: boolean; clean?: boolean; seeds?: readonly string[]; extraArgs?: readonly string[] } = {},
): Promise<LocalNode> {
  const old = cluster.nodes[index]!;
  await (options.clean === true ? old.stop() : old.kill());
  if (options.wipe === true) await rm(old.spec.dataDir, { recursive: true, force: true });
  const spec = {
    ...old.spec,
    seeds: options.seeds ?? old.spec.seeds,
    extraArgs: [...(old.spec.extraArgs ?? []), ...(options.extraArgs ?? [])],
  };
  const node = new LocalNode(spec, DIST_CLI);
  cluster.nodes[index] = node;
  await node.start();
  return node;
}

/** Blocks traffic both ways between two sides (fault injection: the nodes need --fault-injection). */
export async function splitNetwork(sideA: readonly LocalNode[], sideB: readonly LocalNode[]): Promise<void> {
  const block = async (from: LocalNode, to: readonly LocalNode[]): Promise<void> => {
    const res = await http(from.url, 'POST', '/v1/admin/faults', {
      json: { blockPeers: to.map((n) => n.spec.nodeId) },
    });
    if (res.status !== 200) throw new Error(`blocking on ${from.spec.nodeId}: ${JSON.stringify(res.body)}`);
  };
  await Promise.all([...sideA.map((n) => block(n, sideB)), ...sideB.map((n) => block(n, sideA))]);
}

export async function healNetwork(nodes: readonly LocalNode[]): Promise<void> {
  await Promise.all(nodes.map((n) => http(n.url, 'DELETE', '/v1/admin/faults')));
}

/** A node's live values of `key` as sorted JSON texts, from its own stored copy; [] for none. */
export async function liveValues(base: string, key: string): Promise<string[]> {
  return ((await localValues(base, key)) ?? []).map((v) => JSON.stringify(v)).sort();
}

/**
 * Waits until every node's own copy of `key` holds the same live values, twice in a row (so a
 * copy in the middle of a repair does not count), and answers them (sorted JSON texts).
 */
export async function waitForAgreement(
  nodes: readonly { url: string }[],
  key: string,
  timeoutMs: number,
): Promise<string[]> {
  let previous: string | undefined;
  let agreed: string[] = [];
  await waitFor(
    async () => {
      const all = await Promise.all(nodes.map((n) => liveValues(n.url, key)));
      const texts = new Set(all.map((v) => JSON.stringify(v)));
      const now = texts.size === 1 ? [...texts][0]! : undefined;
      const stable = now !== undefined && now === previous;
      previous = now;
      agreed = all[0]!;
      return stable;
    },
    timeoutMs,
    `every node's copy of ${key} holds the same live values`,
  );
  return agreed;
}

/** What GET /v1/status/repair says about anti-entropy (the fields tests look at). */
export interface AntiEntropyStatus {
  tombstonesCollected: number;
  partitions: { partition: number; inSyncMs: Record<string, number> }[];
}

export async function antiEntropyStatus(base: string): Promise<AntiEntropyStatus> {
  const res = await http(base, 'GET', '/v1/status/repair');
  return res.body.antiEntropy as AntiEntropyStatus;
}

/** When `base` last finished an in-sync exchange of `partition` with `peer` (started at); 0 if never. */
export async function inSyncSince(base: string, partition: number, peer: string): Promise<number> {
  const status = await antiEntropyStatus(base);
  return status.partitions.find((p) => p.partition === partition)?.inSyncMs[peer] ?? 0;
}

/**
 * A read with r=3 through `base`, retried while replicas are unreachable (a peer just restarted or
 * healed may be skipped for a while); answers the first 200 or 404.
 */
export async function readAll(base: string, key: string, timeoutMs: number): Promise<Reply> {
  let reply: Reply | undefined;
  await waitFor(
    async () => {
      reply = await http(base, 'GET', kvPath(key, '?r=3'));
      return reply.status === 200 || reply.status === 404;
    },
    timeoutMs,
    `a read of ${key} with r=3 through ${base} is answered`,
  );
  return reply!;
}
