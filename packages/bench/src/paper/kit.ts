/** What the paper's cluster experiments share: a local cluster per experiment, watched for CPU and memory. */
import type { Pool } from 'undici';
import { type Cluster, startLocalCluster } from '../cluster.js';
import { createPool } from '../http.js';
import type { Durability } from '../options.js';
import { ProcessSampler } from '../proc-sampler.js';
import type { ProgressSink } from '../progress.js';
import type { PhaseContext } from '../runner.js';
import type { ClusterShape } from './model.js';

export interface ExperimentIo {
  log(line: string): void;
  readonly progress: ProgressSink;
  readonly signal: AbortSignal;
}

/** What the nodes are started with besides their shape: `--durability` and `--strong`. */
export interface NodeFlags {
  readonly durability?: Durability | undefined;
  readonly strong?: readonly string[];
  /** Keep the temp dir (data and node logs) after the run. */
  readonly keepData?: boolean;
}

/** Starts a local cluster, runs `body` against it with a phase context, and always stops it. */
export async function withCluster<T>(
  shape: ClusterShape,
  flags: NodeFlags,
  io: ExperimentIo,
  body: (cluster: Cluster, ctx: PhaseContext) => Promise<T>,
): Promise<T> {
  const { durability, strong = [] } = flags;
  const label =
    (durability === undefined ? '' : `, durability ${durability}`) +
    (strong.length === 0 ? '' : `, strong namespaces ${strong.join(',')}`);
  io.log(`Starting ${shape.nodes} nodes (N=${shape.n} R=${shape.r} W=${shape.w}${label})…`);
  const cluster = await startLocalCluster({
    ...shape,
    keepData: flags.keepData === true,
    ...(durability === undefined ? {} : { durability }),
    ...(strong.length === 0 ? {} : { strong }),
  });
  const processes = new ProcessSampler();
  processes.watch({ name: 'bench', pid: process.pid });
  for (const node of cluster.nodes)
    if (node.pid !== undefined) processes.watch({ name: node.nodeId, pid: node.pid });
  processes.start();
  try {
    return await body(cluster, { progress: io.progress, processes, signal: io.signal });
  } finally {
    processes.stop();
    await cluster.stop();
  }
}

/** One pool per node, the connections split between them; worker i uses pools[i % nodes]. */
export function spreadPools(cluster: Cluster, connections: number): Pool[] {
  const count = cluster.nodes.length;
  return cluster.nodes.map((node, i) =>
    createPool(node.url, Math.max(1, Math.floor(connections / count) + (i < connections % count ? 1 : 0))),
  );
}

export async function closePools(pools: readonly Pool[]): Promise<void> {
  await Promise.all(pools.map((p) => p.close()));
}

/** A key prefix unique to this moment, so experiments against the same nodes never mix keys. */
export function uniquePrefix(tag: string): string {
  return `${tag}${Date.now().toString(36)}-`;
}
