/**
 * The nodes the store uses: a local cluster it starts itself (separate `tessera start` processes,
 * with `--fault-injection` so the panel can split it, and `--strong stock,orders` for the stock
 * and the orders), or an existing cluster named by URL (whose nodes must declare those too).
 */
import { resolve } from 'node:path';
import { LocalNode, localNodeSpecs } from '@tessera/server/local-cluster';
import type { NodeSpec } from '../cluster/directory.js';
import { STRONG_NAMESPACES } from '../stock/stock.js';

const READY_TIMEOUT_MS = 30_000;
const EXTERNAL_TIMEOUT_MS = 120_000;
const POLL_MS = 200;

export interface LocalCluster {
  readonly nodes: readonly NodeSpec[];
  stop(): Promise<void>;
}

async function json(url: string): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return res.ok ? ((await res.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`Timed out after ${timeoutMs / 1000} s waiting until ${what}.`);
}

/** Starts `count` nodes one after the other (n0 creates the cluster, the others join it). */
export async function startLocalCluster(
  options: { count: number; dir: string; httpPort: number },
  print: (line: string) => void,
): Promise<LocalCluster> {
  const dir = resolve(options.dir);
  const extraArgs = [
    '--fault-injection',
    '--strong',
    STRONG_NAMESPACES.join(','),
    ...(options.count < 3 ? ['--n', String(options.count), '--r', '1', '--w', '1'] : []),
  ];
  const specs = localNodeSpecs({ nodes: options.count, dir, httpPort: options.httpPort, extraArgs });
  const nodes = specs.map((spec) => new LocalNode(spec));
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  for (const node of nodes) {
    if ((await json(`${node.url}/health`)) !== undefined) {
      await stop();
      throw new Error(
        `Something already answers at ${node.url}: is a Tessera cluster running? Stop it first, or use it with TESSERA_NODES=${nodes.map((n) => n.url).join(',')}.`,
      );
    }
    try {
      await node.start();
    } catch (err) {
      await stop();
      throw err;
    }
    print(`  node ${node.spec.nodeId} ready  ${node.url}  pid ${node.pid}  log ${node.logPath}`);
  }
  await until('every node sees every other', READY_TIMEOUT_MS, async () => {
    const views = await Promise.all(nodes.map((n) => json(`${n.url}/v1/status`)));
    return views.every((v) => Array.isArray(v?.members) && v.members.length === nodes.length);
  });
  return { nodes: nodes.map((n) => ({ id: n.spec.nodeId, url: n.url, process: n })), stop };
}

/** Waits until every URL answers and learns its node id. */
export async function externalNodes(
  urls: readonly string[],
  print: (line: string) => void,
): Promise<NodeSpec[]> {
  const specs: NodeSpec[] = [];
  for (const url of urls) {
    let id: string | undefined;
    await until(`${url} answers /v1/status`, EXTERNAL_TIMEOUT_MS, async () => {
      const status = await json(`${url}/v1/status`);
      id = typeof status?.nodeId === 'string' ? status.nodeId : undefined;
      return id !== undefined;
    });
    specs.push({ id: id!, url });
    print(`  node ${id} at ${url}`);
  }
  return specs;
}
