/**
 * The nodes under test: separate `tessera start` processes on loopback, each dialling every peer
 * through the proxy of that directed link (`peerDialOverrides`), so every link can be cut, stalled,
 * slowed or made lossy on its own. Nodes can be killed with SIGKILL and restarted (with another
 * clock offset), wiped (to start alone, or to rejoin under the same id through a seed), armed to
 * kill themselves in the middle of a write or a transaction, and told to join or leave. Every node
 * runs with `--strong registers,accounts`.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@tessera/core';
import { freePortBlock, LocalNode, type LocalNodeSpec } from '@tessera/server/local-cluster';
import { NodeApi, type StatusBody } from './node-api.js';
import { type LinkFault, LinkProxy } from './proxy.js';

export type { StatusBody };

const HOST = '127.0.0.1';
const START_ATTEMPTS = 5;
const POLL_MS = 50;

/** Node settings of a chaos run: short timers, so failures are noticed and repaired within seconds. */
export const CHAOS_NODE_SETTINGS = {
  n: 3,
  r: 2,
  w: 2,
  faultInjection: true,
  peerRetryMs: 1_000,
  gossipIntervalMs: 500,
  handoffIntervalMs: 500,
  // 16 partitions and an exchange every 250 ms: each pair of replicas of a partition syncs every
  // few seconds, so tombstones become collectable, and are collected, within a fault window.
  partitions: 16,
  antiEntropyIntervalMs: 250,
  transferStartDelayMs: 500,
  retireDelayMs: 5_000,
  // Short enough that tombstones are collected during a run, and shorter than the isolate fault's
  // partition (nemesis-isolate.ts). Longer than every other fault's window (at most 6 s, plus a
  // restart): a copy no replica could reach for the whole grace, and a hint older than its TTL,
  // may be dropped (docs/consistency.md), and the other faults must not cause that. Hints expire first.
  tombstoneGraceMs: 12_000,
  hintTtlMs: 10_000,
} as const;

/** The strong namespaces every node declares (`--strong`): the register and bank workloads' keys. */
export const STRONG_NAMESPACES = ['registers', 'accounts'] as const;

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

interface NodeEntry {
  readonly id: string;
  readonly httpPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly configPath: string;
  process: LocalNode | undefined;
  clockOffsetMs: number;
  /** Seeds of a start on an empty data dir: a wiped member rejoins through them. */
  seeds: readonly string[];
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
        seeds: [],
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

  /** Starts (or restarts) a node on its data dir (with `seeds`, or those it was last given). */
  async start(id: string, seeds?: readonly string[]): Promise<void> {
    const node = this.entry(id);
    if (node.process?.running) return;
    if (seeds !== undefined) node.seeds = seeds;
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
      seeds: node.seeds,
      extraArgs: [
        '--config',
        node.configPath,
        '--log-level',
        this.options.logLevel ?? 'warn',
        '--strong',
        STRONG_NAMESPACES.join(','),
      ],
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

  /** kill -9 (or, `clean`, SIGTERM and a clean stop), then start again with `clockOffsetMs` (the clock jumps). */
  async restartWithClock(id: string, clockOffsetMs: number, clean = false): Promise<void> {
    if (clean) await this.entry(id).process?.stop();
    else await this.kill(id);
    this.entry(id).clockOffsetMs = clockOffsetMs;
    await this.start(id);
  }

  /** kill -9, wipe the data dir, start alone: a fresh node that can be told to join. */
  async wipe(id: string): Promise<void> {
    const node = this.entry(id);
    await this.kill(id);
    await rm(node.dataDir, { recursive: true, force: true });
    await this.start(id, []);
  }

  /**
   * kill -9, wipe the data dir, and start again under the same node id with `through` as its seed
   * (its proxied peer address), as an operator replacing a disk would: no leave, no remove. Its
   * clock may come back at another offset.
   */
  async wipeAndRejoin(id: string, through: string, clockOffsetMs: number): Promise<void> {
    const node = this.entry(id);
    await this.kill(id);
    await rm(node.dataDir, { recursive: true, force: true });
    node.clockOffsetMs = clockOffsetMs;
    await this.start(id, [this.dialAddress(id, through)]);
  }

  /** Waits until the node's process has exited; false if it still runs at the deadline. */
  async waitExited(id: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.running(id)) {
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
    }
    return true;
  }

  /** The node's HTTP API (status, placement, local copies, admin calls). */
  api(id: string): NodeApi {
    return new NodeApi(id, this.url(id));
  }

  async join(id: string, through: string): Promise<void> {
    await this.api(id).join(this.dialAddress(id, through));
  }

  async leave(id: string): Promise<void> {
    await this.api(id).leave();
  }

  async status(id: string): Promise<StatusBody> {
    return this.api(id).status();
  }

  async preferenceList(id: string, key: string): Promise<string[]> {
    return [...(await this.api(id).placement(key)).nodes];
  }

  /** A node's own stored siblings of `key` ([] when it holds no live value). */
  async localValues(id: string, key: string): Promise<unknown[]> {
    return this.api(id).localValues(key);
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
