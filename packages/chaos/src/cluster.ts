/**
 * The nodes under test: separate `tessera start` processes on loopback, each dialling every peer
 * through the proxy of that directed link (`peerDialOverrides`), so every link can be cut, stalled,
 * slowed or made lossy on its own. Nodes can be killed with SIGKILL and restarted (with another
 * clock offset), wiped, and told to join or leave.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@tessera/core';
import { freePortBlock } from '../../server/dist/cli/free-ports.js';
// @tessera/server exports only its index; the local-node helper comes from its build output.
import { LocalNode, type LocalNodeSpec } from '../../server/dist/cli/local-cluster.js';
import { type LinkFault, LinkProxy } from './proxy.js';

const HOST = '127.0.0.1';
const CALL_TIMEOUT_MS = 5_000;
const START_ATTEMPTS = 5;

/** Node settings of a chaos run: short timers, so failures are noticed and repaired within seconds. */
export const CHAOS_NODE_SETTINGS = {
  n: 3,
  r: 2,
  w: 2,
  faultInjection: true,
  peerRetryMs: 1_000,
  gossipIntervalMs: 500,
  handoffIntervalMs: 500,
  antiEntropyIntervalMs: 500,
  transferStartDelayMs: 500,
  retireDelayMs: 5_000,
  // Short enough that tombstones are collected during a run, under clock skew and restarts.
  tombstoneGraceMs: 15_000,
  hintTtlMs: 10_000,
} as const;

export interface ChaosClusterOptions {
  /** Members of the initial ring. */
  readonly members: number;
  /** Extra nodes started alone, to join during the run. */
  readonly spares: number;
  readonly dir: string;
  readonly cliPath: string;
  readonly random: Rng;
  readonly settings?: Readonly<Record<string, unknown>>;
  /** The nodes' --log-level; default warn. */
  readonly logLevel?: string;
}

export interface StatusBody {
  readonly nodeId: string;
  readonly ringVersion: number;
  readonly ring: { readonly owners: readonly string[] };
  readonly members: readonly { nodeId: string; status: string; partitions: number; http: string }[];
  readonly pending: unknown;
  /** Partitions this node holds but no longer replicates, not yet handed over; null before it knows. */
  readonly retiring?: number | null;
}

interface NodeEntry {
  readonly id: string;
  readonly httpPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly configPath: string;
  process: LocalNode | undefined;
  clockOffsetMs: number;
}

export class ChaosCluster {
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly links = new Map<string, LinkProxy>();

  private constructor(private readonly options: ChaosClusterOptions) {}

  /** Ports, proxies and config files for every node; nothing is started yet. */
  static async create(options: ChaosClusterOptions): Promise<ChaosCluster> {
    const cluster = new ChaosCluster(options);
    const ids = Array.from({ length: options.members + options.spares }, (_, i) => `n${i}`);
    const linkCount = ids.length * (ids.length - 1);
    const base = await freePortBlock(2 * ids.length + linkCount);
    ids.forEach((id, i) => {
      cluster.nodes.set(id, {
        id,
        httpPort: base + i,
        peerPort: base + ids.length + i,
        dataDir: join(options.dir, id),
        configPath: join(options.dir, `${id}.config.json`),
        process: undefined,
        clockOffsetMs: 0,
      });
    });
    let port = base + 2 * ids.length;
    for (const from of ids) {
      for (const to of ids) {
        if (from === to) continue;
        const target = cluster.entry(to);
        const proxy = new LinkProxy(from, to, { host: HOST, port: target.peerPort }, options.random);
        await proxy.listen(port++);
        cluster.links.set(linkId(from, to), proxy);
      }
    }
    return cluster;
  }

  get ids(): string[] {
    return [...this.nodes.keys()];
  }

  /** The ids of the initial members (the rest are spares). */
  get initialMembers(): string[] {
    return this.ids.slice(0, this.options.members);
  }

  url(id: string): string {
    return `http://${HOST}:${this.entry(id).httpPort}`;
  }

  running(id: string): boolean {
    return this.entry(id).process?.running ?? false;
  }

  clockOffsetMs(id: string): number {
    return this.entry(id).clockOffsetMs;
  }

  logPath(id: string): string {
    return `${this.entry(id).dataDir}.log`;
  }

  /** The address `from` dials to reach `to`: the proxy of that link. */
  dialAddress(from: string, to: string): string {
    return this.link(from, to).address;
  }

  /** Starts the initial members (each later one through n0) and the spares, alone. */
  async startAll(): Promise<void> {
    const [first] = this.initialMembers;
    for (const id of this.ids) {
      const member = this.initialMembers.includes(id);
      const seeds = member && id !== first && first !== undefined ? [this.dialAddress(id, first)] : [];
      await this.start(id, seeds);
    }
  }

  /** Starts (or restarts) a node on its data dir. */
  async start(id: string, seeds: readonly string[] = []): Promise<void> {
    const node = this.entry(id);
    if (node.process?.running) return;
    const overrides = Object.fromEntries(
      this.ids.filter((other) => other !== id).map((other) => [other, this.dialAddress(id, other)]),
    );
    const config = {
      ...CHAOS_NODE_SETTINGS,
      ...(this.options.settings ?? {}),
      clockOffsetMs: node.clockOffsetMs,
      peerDialOverrides: overrides,
    };
    await writeFile(node.configPath, JSON.stringify(config, null, 2));
    const spec: LocalNodeSpec = {
      nodeId: id,
      host: HOST,
      httpPort: node.httpPort,
      peerPort: node.peerPort,
      dataDir: node.dataDir,
      seeds,
      extraArgs: ['--config', node.configPath, '--log-level', this.options.logLevel ?? 'warn'],
    };
    for (let attempt = 1; ; attempt++) {
      node.process = new LocalNode(spec, this.options.cliPath);
      try {
        await node.process.start();
        return;
      } catch (err) {
        // While the node was down, an outgoing connection may have taken its port for a moment.
        if (attempt >= START_ATTEMPTS || !String(err).includes('EADDRINUSE')) throw err;
        await sleep(1_000);
      }
    }
  }

  /** kill -9. */
  async kill(id: string): Promise<void> {
    await this.entry(id).process?.kill();
  }

  /** kill -9, then start again with `clockOffsetMs` (the clock jumps). */
  async restartWithClock(id: string, clockOffsetMs: number): Promise<void> {
    await this.kill(id);
    this.entry(id).clockOffsetMs = clockOffsetMs;
    await this.start(id);
  }

  /** kill -9, wipe the data dir, start alone: a fresh node that can be told to join. */
  async wipe(id: string): Promise<void> {
    const node = this.entry(id);
    await this.kill(id);
    await rm(node.dataDir, { recursive: true, force: true });
    await this.start(id);
  }

  async join(id: string, through: string): Promise<void> {
    await this.call(id, 'POST', '/v1/admin/join', { seed: this.dialAddress(id, through) });
  }

  async leave(id: string): Promise<void> {
    await this.call(id, 'POST', '/v1/admin/leave', {});
  }

  async status(id: string): Promise<StatusBody> {
    return (await this.call(id, 'GET', '/v1/status')) as StatusBody;
  }

  async preferenceList(id: string, key: string): Promise<string[]> {
    const body = (await this.call(id, 'GET', `/v1/preference-list/${encodeURIComponent(key)}`)) as {
      nodes: string[];
    };
    return body.nodes;
  }

  /** A node's own stored siblings of `key` ([] when it holds no live value). */
  async localValues(id: string, key: string): Promise<unknown[]> {
    const res = await fetch(`${this.url(id)}/v1/kv/${encodeURIComponent(key)}?local=true`, {
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    if (res.status === 404) return [];
    if (!res.ok) throw new Error(`${id} answered ${res.status} to a local read of ${key}`);
    const body = (await res.json()) as { siblings: { value: unknown }[] };
    return body.siblings.map((s) => s.value);
  }

  setLink(from: string, to: string, fault: LinkFault): void {
    this.link(from, to).set(fault);
  }

  /** Every link back to normal. */
  healLinks(): void {
    for (const proxy of this.links.values()) proxy.set({ kind: 'ok' });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.process?.kill()));
    await Promise.all([...this.links.values()].map((p) => p.close()));
  }

  private async call(id: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.url(id)}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const parsed: unknown = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${method} ${path} on ${id}: ${res.status} ${JSON.stringify(parsed)}`);
    return parsed;
  }

  private entry(id: string): NodeEntry {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`no node ${id}`);
    return node;
  }

  private link(from: string, to: string): LinkProxy {
    const proxy = this.links.get(linkId(from, to));
    if (proxy === undefined) throw new Error(`no link ${from}->${to}`);
    return proxy;
  }
}

function linkId(from: string, to: string): string {
  return `${from}->${to}`;
}
