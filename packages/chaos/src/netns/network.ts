/**
 * Hosts on one machine: a Linux network namespace per host, each with its own address on a bridge
 * (veth pairs), e.g. 10.77.3.11, 10.77.3.12, ... with the bridge, and so this process, at
 * 10.77.3.1. A free 10.77.X.0/24 is picked per network, so parallel runs do not collide. Cleanup
 * always runs: `destroy()`, or on exit and SIGINT/SIGTERM; what a killed run leaves is swept by the
 * next one (names.ts). Needs root, `ip` and `nft` (preflight.ts).
 */
import { run, runQuietlySync } from './command.js';
import { type NetnsNames, netnsNames, sweepLeftovers } from './names.js';
import { checkNetnsSupport } from './preflight.js';

export const HOSTS_MAX = 200;
/** The first host's last octet: 10.77.X.11, .12, ... */
const FIRST_HOST_OCTET = 11;
const SUBNET_PREFIX = '10.77';

export interface NetnsHost {
  readonly index: number;
  readonly namespace: string;
  /** Its IPv4 address on the bridge. */
  readonly address: string;
}

export class NetnsNetwork {
  private destroyed = false;
  private readonly onExit = (): void => this.destroySync();
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.destroySync();
    process.kill(process.pid, signal);
  };

  private constructor(
    private readonly names: NetnsNames,
    /** The third octet of 10.77.X.0/24. */
    private readonly subnet: number,
    readonly hosts: readonly NetnsHost[],
  ) {}

  /** Checks what is needed, sweeps leftovers of dead runs, then makes the bridge and `count` hosts. */
  static async create(count: number): Promise<NetnsNetwork> {
    if (!Number.isInteger(count) || count < 1 || count > HOSTS_MAX)
      throw new Error(`a netns network has 1 to ${HOSTS_MAX} hosts, not ${count}.`);
    await checkNetnsSupport();
    await sweepLeftovers();
    const names = netnsNames();
    const subnet = await freeSubnet();
    const hosts = Array.from({ length: count }, (_, index) => ({
      index,
      namespace: names.namespace(index),
      address: `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + index}`,
    }));
    const network = new NetnsNetwork(names, subnet, hosts);
    network.armCleanup();
    try {
      await network.build();
    } catch (err) {
      await network.destroy();
      throw new Error(`could not create the network namespaces: ${String(err)}`);
    }
    return network;
  }

  /** This process's address on the bridge: how it reaches every host. */
  get hostAddress(): string {
    return `${SUBNET_PREFIX}.${this.subnet}.1`;
  }

  host(index: number): NetnsHost {
    const host = this.hosts[index];
    if (host === undefined) throw new Error(`no host ${index} in this netns network`);
    return host;
  }

  /** The command prefix that runs a program in host `index`'s namespace (execs it in place). */
  wrapper(index: number): string[] {
    return ['ip', 'netns', 'exec', this.host(index).namespace];
  }

  /** Runs `command args...` in host `index`'s namespace. */
  runIn(index: number, command: string, args: readonly string[], input?: string): Promise<string> {
    const [ip = 'ip', ...prefix] = this.wrapper(index);
    return run(ip, [...prefix, command, ...args], input === undefined ? {} : { input });
  }

  /** Deletes the veths, namespaces (their nftables rules go with them) and the bridge. Idempotent. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.disarmCleanup();
    for (const host of this.hosts) {
      await run('ip', ['link', 'delete', this.names.veth(host.index)]).catch(() => {});
      await run('ip', ['netns', 'delete', host.namespace]).catch(() => {});
    }
    await run('ip', ['link', 'delete', this.names.bridge]).catch(() => {});
  }

  private async build(): Promise<void> {
    const { bridge } = this.names;
    await run('ip', ['link', 'add', bridge, 'type', 'bridge']);
    await run('ip', ['addr', 'add', `${this.hostAddress}/24`, 'dev', bridge]);
    await run('ip', ['link', 'set', bridge, 'up']);
    for (const host of this.hosts) {
      const veth = this.names.veth(host.index);
      const ns = host.namespace;
      await run('ip', ['netns', 'add', ns]);
      await run('ip', ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      await run('ip', ['link', 'set', veth, 'master', bridge]);
      await run('ip', ['link', 'set', veth, 'up']);
      await run('ip', ['-n', ns, 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
      await run('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  }

  private destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.disarmCleanup();
    for (const host of this.hosts) {
      runQuietlySync('ip', ['link', 'delete', this.names.veth(host.index)]);
      runQuietlySync('ip', ['netns', 'delete', host.namespace]);
    }
    runQuietlySync('ip', ['link', 'delete', this.names.bridge]);
  }

  private armCleanup(): void {
    process.once('exit', this.onExit);
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  private disarmCleanup(): void {
    process.off('exit', this.onExit);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}

/** A third octet X such that no interface of this machine has an address in 10.77.X.0/24. */
async function freeSubnet(): Promise<number> {
  const used = new Set<number>();
  const text = await run('ip', ['-o', '-4', 'addr', 'show']);
  for (const match of text.matchAll(/inet 10\.77\.(\d+)\./g)) used.add(Number(match[1]));
  const start = process.pid % 250;
  for (let i = 0; i < 250; i++) {
    const candidate = ((start + i) % 250) + 1;
    if (!used.has(candidate)) return candidate;
  }
  throw new Error(`no free ${SUBNET_PREFIX}.X.0/24 subnet: delete leftover bridges (ip -o -4 addr show).`);
}
