/**
 * The nodes under test: a local cluster of separate `tessera start` processes in a temp dir, or
 * nodes given by URL (on this machine's loopback only).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePortBlock, LocalNode, localNodeSpecs } from '@tessera/server/local-cluster';
import { CPU_PROF_DIR_ENV } from './profile.js';
import type { ClusterInfo } from './results.js';

export interface NodeHandle {
  readonly nodeId: string;
  readonly url: string;
  /** The process id, when the process runs on this machine. */
  readonly pid: number | undefined;
}

export interface Cluster {
  readonly nodes: readonly NodeHandle[];
  readonly info: ClusterInfo;
  /** Stops the nodes the harness started and removes their data; nodes given by URL are left alone. */
  stop(): Promise<void>;
  /** Starts the CPU profiler of the profiled node (see profiled-node.ts), if there is one. */
  startProfiling(): void;
}

export interface LocalClusterOptions {
  readonly nodes: number;
  readonly n: number;
  readonly r: number;
  readonly w: number;
  /** `tessera start --durability`; undefined leaves the node's default. */
  readonly durability?: string;
  /** `tessera start --config`: a node config file, the same for every node; none when absent. */
  readonly config?: string;
  /** `tessera start --strong`: the strong namespaces, the same on every node; none when absent or empty. */
  readonly strong?: readonly string[];
  /** Run node n0 with --cpu-prof, writing its profile here when it stops. */
  readonly cpuProfDir?: string;
  /** Keep the temp dir (data and node logs) after the run. */
  readonly keepData: boolean;
  /** The `tessera` CLI the nodes run (another checkout's, for `pnpm bench ab`); this one's by default. */
  readonly cliPath?: string;
  readonly onNodeReady?: (node: NodeHandle, logPath: string) => void;
}

interface StatusBody {
  readonly nodeId: string;
  readonly pid: number;
  readonly n: number;
  readonly r: number;
  readonly w: number;
  readonly durability?: string;
  /** Set by the replication-shape probe (probe/node.ts), never by Tessera. */
  readonly probe?: boolean;
  readonly members: readonly { readonly nodeId: string; readonly http: string; readonly status: string }[];
}

const CONVERGE_TIMEOUT_MS = 30_000;
const PROFILED_NODE_PATH = fileURLToPath(new URL('./profiled-node.js', import.meta.url));

export async function startLocalCluster(options: LocalClusterOptions): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-bench-'));
  // One block for both: two blocks found one after the other may be the same ports.
  const httpPort = await freePortBlock(2 * options.nodes);
  const peerPort = httpPort + options.nodes;
  const extraArgs = ['--n', String(options.n), '--r', String(options.r), '--w', String(options.w)];
  if (options.durability !== undefined) extraArgs.push('--durability', options.durability);
  if (options.config !== undefined) extraArgs.push('--config', options.config);
  if (options.strong !== undefined && options.strong.length > 0)
    extraArgs.push('--strong', options.strong.join(','));
  const specs = localNodeSpecs({ nodes: options.nodes, dir, httpPort, peerPort, extraArgs });
  const started: LocalNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((node) => node.stop()));
    if (!options.keepData) await rm(dir, { recursive: true, force: true });
  };
  if (options.cpuProfDir !== undefined) {
    await mkdir(options.cpuProfDir, { recursive: true });
    // Read by profiled-node.js in the child; nothing else looks at it.
    process.env[CPU_PROF_DIR_ENV] = resolve(options.cpuProfDir);
  }
  try {
    for (const spec of specs) {
      const profiled = spec.nodeId === 'n0' && options.cpuProfDir !== undefined;
      const node = profiled ? new LocalNode(spec, PROFILED_NODE_PATH) : new LocalNode(spec, options.cliPath);
      started.push(node);
      await node.start();
      options.onNodeReady?.({ nodeId: spec.nodeId, url: node.url, pid: node.pid }, node.logPath);
    }
    const nodes = started.map((node) => ({ nodeId: node.spec.nodeId, url: node.url, pid: node.pid }));
    const status = await waitConverged(nodes.map((n) => n.url));
    const profiledPid = options.cpuProfDir === undefined ? undefined : started[0]?.pid;
    const startProfiling = (): void => {
      if (profiledPid !== undefined) process.kill(profiledPid, 'SIGUSR2');
    };
    return { nodes, info: clusterInfo(true, nodes, status, options.config), stop, startProfiling };
  } catch (err) {
    await stop();
    throw err;
  }
}

export async function attachCluster(urls: readonly string[]): Promise<Cluster> {
  const statuses = await Promise.all(urls.map((url) => fetchStatus(url)));
  const nodes = statuses.map((s, i) => ({ nodeId: s.nodeId, url: urls[i]!, pid: s.pid }));
  return {
    nodes,
    info: clusterInfo(false, nodes, statuses[0]!),
    stop: async () => {},
    startProfiling: () => {},
  };
}

function clusterInfo(
  local: boolean,
  nodes: readonly NodeHandle[],
  status: StatusBody,
  config?: string,
): ClusterInfo {
  return {
    local,
    urls: nodes.map((n) => n.url),
    nodeIds: nodes.map((n) => n.nodeId),
    n: status.n,
    r: status.r,
    w: status.w,
    ...(status.durability === undefined ? {} : { durability: status.durability }),
    ...(status.probe === true ? { probe: true } : {}),
    ...(config === undefined ? {} : { config }),
  };
}

/** Waits until every node sees every node as up, so no phase starts on a half-formed ring. */
async function waitConverged(urls: readonly string[]): Promise<StatusBody> {
  const deadline = Date.now() + CONVERGE_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const statuses = await Promise.all(urls.map((url) => fetchStatus(url)));
      const converged = statuses.every(
        (s) => s.members.length === urls.length && s.members.every((m) => m.status === 'up'),
      );
      if (converged) return statuses[0]!;
      last = JSON.stringify(statuses.map((s) => s.members.map((m) => `${m.nodeId}:${m.status}`)));
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await sleep(200);
  }
  throw new Error(`the cluster did not converge within ${CONVERGE_TIMEOUT_MS} ms; last view: ${last}`);
}

async function fetchStatus(url: string): Promise<StatusBody> {
  const res = await fetch(`${url}/v1/status`, { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`GET ${url}/v1/status answered ${res.status}`);
  return (await res.json()) as StatusBody;
}
