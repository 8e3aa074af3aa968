/**
 * The panel's buttons: stop and restart a node the store started, split the cluster into two sides
 * and heal it. A split is made with each node's fault-injection API (nodes started with
 * `--fault-injection`): every node of one side drops its traffic to every node of the other. The
 * store remembers the split so that a node restarted meanwhile joins its side again.
 */
import type { FastifyBaseLogger } from 'fastify';
import { StoreError } from '../http/errors.js';
import type { NodeDirectory, NodeEntry } from './directory.js';

const FAULT_TIMEOUT_MS = 2_000;

/** The split the store made: its sides and when it began (ms since the epoch). */
export interface SplitNow {
  readonly sides: readonly (readonly string[])[];
  readonly since: number;
}

export class ClusterControl {
  private split: string[][] | null = null;
  private splitSince: number | null = null;
  private lastSplit: number | null = null;
  private readonly starting = new Map<string, Promise<void>>();

  constructor(
    private readonly nodes: NodeDirectory,
    private readonly log: FastifyBaseLogger,
    private readonly onChange: () => void = () => {},
  ) {}

  /** The split the store made and has not healed yet, or null. */
  current(): SplitNow | null {
    return this.split === null || this.splitSince === null
      ? null
      : { sides: this.split, since: this.splitSince };
  }

  /** When the store last split the cluster (ms since the epoch), healed since or not. */
  lastSplitAt(): number | null {
    return this.lastSplit;
  }

  /** SIGTERM to the node's process; it keeps its data and comes back with restart. */
  async stop(id: string): Promise<void> {
    const node = this.managed(id);
    await node.process.stop();
    this.log.info({ nodeId: id }, 'node stopped from the cluster panel');
    this.onChange();
  }

  async start(id: string): Promise<void> {
    const node = this.managed(id);
    if (node.process.running) return;
    let starting = this.starting.get(id);
    if (starting === undefined) {
      starting = node.process.start().finally(() => this.starting.delete(id));
      this.starting.set(id, starting);
    }
    await starting;
    this.log.info({ nodeId: id }, 'node restarted from the cluster panel');
    const side = this.split?.find((s) => s.includes(id));
    if (side !== undefined) await this.block(node, this.others(side));
    this.onChange();
  }

  /** Splits the cluster: `isolate` alone on one side, every other node on the other. */
  async isolate(isolate: string): Promise<string[][]> {
    this.node(isolate);
    const sides = [[isolate], this.nodes.ids().filter((id) => id !== isolate)];
    if (sides[1]!.length === 0) throw new StoreError('INVALID_REQUEST', 'A split needs at least two nodes.');
    try {
      await Promise.all(
        sides.flatMap((side) => side.map((id) => this.block(this.node(id), this.others(side)))),
      );
    } catch (err) {
      // Not half a split: undo what was applied.
      await Promise.allSettled(this.nodes.list().map((node) => this.fault(node, 'DELETE')));
      throw err;
    }
    this.split = sides;
    this.splitSince = Date.now();
    this.lastSplit = this.splitSince;
    this.log.warn({ sides }, 'cluster split from the cluster panel');
    this.onChange();
    return sides;
  }

  async heal(): Promise<void> {
    await Promise.all(this.nodes.list().map((node) => this.fault(node, 'DELETE')));
    this.split = null;
    this.splitSince = null;
    this.log.warn('cluster healed from the cluster panel');
    this.onChange();
  }

  private others(side: readonly string[]): string[] {
    return this.nodes.ids().filter((id) => !side.includes(id));
  }

  private block(node: NodeEntry, peers: readonly string[]): Promise<void> {
    return this.fault(node, 'POST', { blockPeers: peers });
  }

  /** One call to a node's fault API. A node that is down is skipped: it starts healed anyway. */
  private async fault(node: NodeEntry, method: 'POST' | 'DELETE', body?: unknown): Promise<void> {
    if (node.process !== undefined && !node.process.running) return;
    let res: Response;
    try {
      res = await fetch(`${node.url}/v1/admin/faults`, {
        method,
        signal: AbortSignal.timeout(FAULT_TIMEOUT_MS),
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch (err) {
      this.log.warn({ nodeId: node.id, err }, 'fault injection: node unreachable, skipped');
      return;
    }
    await res.body?.cancel();
    if (res.status === 403) {
      throw new StoreError(
        'FAULT_INJECTION_UNAVAILABLE',
        `Node ${node.id} was not started with --fault-injection, so the store cannot split the cluster.`,
      );
    }
    if (!res.ok)
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `Node ${node.id} answered ${res.status} to ${method} faults.`,
      );
  }

  private node(id: string): NodeEntry {
    const node = this.nodes.get(id);
    if (node === undefined) throw new StoreError('UNKNOWN_NODE', `No node "${id}".`);
    return node;
  }

  private managed(id: string): NodeEntry & { process: NonNullable<NodeEntry['process']> } {
    const node = this.node(id);
    if (node.process === undefined) {
      throw new StoreError(
        'NODE_CONTROL_UNAVAILABLE',
        `The store did not start node ${id}, so it cannot stop or restart it (run the store with \`pnpm start\` to manage a local cluster).`,
      );
    }
    return { ...node, process: node.process };
  }
}
