/** Helpers for black-box tests against real node processes on loopback. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePortBlock } from '../src/cli/free-ports.js';
import { LocalNode, localNodeSpecs } from '../src/cli/local-cluster.js';

export { freePortBlock };

/** Tests run the compiled CLI, exactly as a user does (`pnpm test` builds first). */
export const DIST_CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

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
}

export async function status(base: string): Promise<StatusBody> {
  return (await (await fetch(`${base}/v1/status`)).json()) as StatusBody;
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
}

/** One HTTP call; the body is JSON unless `raw` is given. */
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
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
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
