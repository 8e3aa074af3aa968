/** Starts the replication-shape probe's three nodes (probe/node.ts) on loopback, in a temp dir. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Helper, startHelper } from '../child.js';

const NODE_PATH = fileURLToPath(new URL('./node.js', import.meta.url));

interface Ports {
  readonly http: number;
  readonly peer: number;
}

export interface ProbeCluster {
  /** n0 (the coordinator of every request sent to it) first. */
  readonly urls: readonly string[];
  /** Stops one node (its index in `urls`), as a crash would take it away from the others. */
  stopNode(index: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startProbeCluster(): Promise<ProbeCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-probe-'));
  const nodes: Helper<Ports>[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const id of ['n1', 'n2']) nodes.push(await startNode(id, dir, []));
    const peers = nodes.map((n) => `127.0.0.1:${n.ready.peer}`);
    nodes.unshift(await startNode('n0', dir, ['--peers', peers.join(',')]));
    const stopNode = async (index: number): Promise<void> => {
      const node = nodes[index];
      if (node === undefined)
        throw new RangeError(`the probe has nodes 0 to ${nodes.length - 1}, not ${index}`);
      await node.stop();
    };
    return { urls: nodes.map((n) => `http://127.0.0.1:${n.ready.http}`), stopNode, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function startNode(id: string, dir: string, extra: readonly string[]): Promise<Helper<Ports>> {
  const args = ['--id', id, '--dir', join(dir, id), ...extra];
  return startHelper(NODE_PATH, args, `probe node ${id}`, (line) =>
    typeof line.http === 'number' && typeof line.peer === 'number'
      ? { http: line.http, peer: line.peer }
      : undefined,
  );
}
