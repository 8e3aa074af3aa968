/**
 * The nodes under test: separate `tessera start` processes, on loopback behind a proxy per directed
 * link (proxy-network.ts), or with `netns` each in its own network namespace with TLS and nftables
 * faults (netns/chaos-network.ts), so every link can be cut, stalled or made lossy on its own. Nodes can be killed with SIGKILL and restarted (with another
 * clock offset), wiped (to start alone, or to rejoin under the same id through a seed), armed to
 * kill themselves in the middle of a write or a transaction, and told to join or leave. Every node
 * runs with `--strong registers,accounts`.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@tessera/core';
import { LocalNode, type LocalNodeSpec } from '@tessera/server/local-cluster';
import { useNodeAuth } from './http.js';
import { NetnsChaosNetwork } from './netns/chaos-network.js';
import type { ChaosNetwork } from './network.js';
import { NodeApi, type StatusBody } from './node-api.js';
import type { LinkFault } from './proxy.js';
import { ProxyNetwork } from './proxy-network.js';

export type { StatusBody };

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
  /** `netns`: each node in its own network namespace, with TLS (default `proxy`: loopback). */
  readonly network?: 'proxy' | 'netns';
}

interface NodeEntry {
  readonly id: string;
  readonly dataDir: string;
  readonly configPath: string;
  process: LocalNode | undefined;
  clockOffsetMs: number;
  /** Seeds of a start on an empty data dir: a wiped member rejoins through them. */
  seeds: readonly string[];
}

export class ChaosCluster {
  private readonly nodes = new Map<string, NodeEntry>();
  private restoreAuth: () => void = () => {};

  private constructor(
    private readonly options: ChaosClusterOptions,
    /** Where the nodes live and how their links fail. */
    readonly network: ChaosNetwork,
  ) {}

  /** The network (ports and proxies, or namespaces and certificates) and config files; nothing is started yet. */
  static async create(options: ChaosClusterOptions): Promise<ChaosCluster> {
    const ids = Array.from({ length: options.members + options.spares }, (_, i) => `n${i}`);
    const network =
      options.network === 'netns'
        ? await NetnsChaosNetwork.create(ids, options.dir, options.cliPath)
        : await ProxyNetwork.create(ids, options.random);
    const cluster = new ChaosCluster(options, network);
    if (network instanceof NetnsChaosNetwork)
      cluster.restoreAuth = useNodeAuth({ ca: network.tls.caPem, token: network.tls.adminToken });
    ids.forEach((id) => {
      cluster.nodes.set(id, {
        id,
        dataDir: join(options.dir, id),
        configPath: join(options.dir, `${id}.config.json`),
        process: undefined,
        clockOffsetMs: 0,
        seeds: [],
      });
    });
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
    return this.network.url(this.entry(id).id);
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

  /** The address `from` dials to reach `to`: the proxy of that link, or `to`'s own address. */
  dialAddress(from: string, to: string): string {
    return this.network.dialAddress(this.entry(from).id, this.entry(to).id);
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
    const launch = this.network.launch(id);
    const config = {
      ...CHAOS_NODE_SETTINGS,
      ...(this.options.settings ?? {}),
      clockOffsetMs: node.clockOffsetMs,
      ...launch.config,
    };
    await writeFile(node.configPath, JSON.stringify(config, null, 2));
    const spec: LocalNodeSpec = {
      nodeId: id,
      host: launch.host,
      httpPort: launch.httpPort,
      peerPort: launch.peerPort,
      dataDir: node.dataDir,
      seeds: node.seeds,
      extraArgs: [
        '--config',
        node.configPath,
        '--log-level',
        this.options.logLevel ?? 'warn',
        '--strong',
        STRONG_NAMESPACES.join(','),
        ...launch.args,
      ],
      ...(launch.wrapper === undefined ? {} : { wrapper: launch.wrapper }),
      ...(launch.caFile === undefined ? {} : { caFile: launch.caFile }),
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

  async setLink(from: string, to: string, fault: LinkFault): Promise<void> {
    await this.network.setLink(this.entry(from).id, this.entry(to).id, fault);
  }

  /** Every link back to normal. */
  async healLinks(): Promise<void> {
    await this.network.healLinks();
  }

  /** Kills every node, then takes the network down (proxies closed, namespaces deleted). */
  async stop(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.process?.kill()));
    await this.network.close();
    this.restoreAuth();
  }

  private entry(id: string): NodeEntry {
    const node = this.nodes.get(id);
    if (node === undefined) throw new Error(`no node ${id}`);
    return node;
  }
}
