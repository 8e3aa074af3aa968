/**
 * The chaos network of `--netns`: a namespace per node with its own address, the node bound and
 * advertised there on the same ports as on a real machine, HTTPS for clients and mTLS between
 * peers (tls.ts), and link faults as nftables rules (firewall.ts). Partitions and stalls drop
 * every packet of the link (TCP holds and retries what it sent, as on a real cut); lossy links drop
 * a share of them. Slow links are not available in this mode.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChaosNetwork, NodeLaunch } from '../network.js';
import type { LinkFault } from '../proxy.js';
import { type LinkRule, NetnsFirewall } from './firewall.js';
import { NetnsNetwork } from './network.js';
import { ClusterTls } from './tls.js';

/** Every node's ports: each has its own address, as on separate machines. */
export const NETNS_HTTP_PORT = 7000;
export const NETNS_PEER_PORT = 8000;

export class NetnsChaosNetwork implements ChaosNetwork {
  private readonly firewall: NetnsFirewall;

  private constructor(
    private readonly ids: readonly string[],
    readonly network: NetnsNetwork,
    readonly tls: ClusterTls,
  ) {
    this.firewall = new NetnsFirewall(network);
  }

  /** A namespace, an address and a certificate per node (certificates under `dir`/tls). */
  static async create(ids: readonly string[], dir: string, cliPath: string): Promise<NetnsChaosNetwork> {
    const network = await NetnsNetwork.create(ids.length);
    try {
      const tlsDir = join(dir, 'tls');
      await mkdir(dir, { recursive: true });
      const nodes = ids.map((id, i) => ({ id, address: network.host(i).address }));
      return new NetnsChaosNetwork(ids, network, await ClusterTls.create(tlsDir, cliPath, nodes));
    } catch (err) {
      await network.destroy();
      throw err;
    }
  }

  launch(id: string): NodeLaunch {
    const { address } = this.host(id);
    return {
      host: address,
      httpPort: NETNS_HTTP_PORT,
      peerPort: NETNS_PEER_PORT,
      args: [
        '--advertise-http',
        `${address}:${NETNS_HTTP_PORT}`,
        '--advertise-peer',
        `${address}:${NETNS_PEER_PORT}`,
        ...this.tls.startArgs(id),
      ],
      config: {},
      wrapper: this.network.wrapper(this.index(id)),
      caFile: this.tls.caFile,
    };
  }

  url(id: string): string {
    return `https://${this.host(id).address}:${NETNS_HTTP_PORT}`;
  }

  /** Nodes dial each other's advertised peer addresses directly. */
  dialAddress(_from: string, to: string): string {
    return `${this.host(to).address}:${NETNS_PEER_PORT}`;
  }

  async setLink(from: string, to: string, fault: LinkFault): Promise<void> {
    await this.firewall.set(this.index(from), this.index(to), NETNS_PEER_PORT, ruleOf(fault));
  }

  async healLinks(): Promise<void> {
    await this.firewall.healAll();
  }

  /** Deletes the namespaces; the nodes must be stopped first. */
  async close(): Promise<void> {
    await this.network.destroy();
  }

  private index(id: string): number {
    const i = this.ids.indexOf(id);
    if (i < 0) throw new Error(`no node ${id}`);
    return i;
  }

  private host(id: string) {
    return this.network.host(this.index(id));
  }
}

function ruleOf(fault: LinkFault): LinkRule | undefined {
  switch (fault.kind) {
    case 'ok':
      return undefined;
    case 'partition':
    case 'stall':
      return { kind: 'drop' };
    case 'lossy':
      return { kind: 'loss', percent: fault.dropRate * 100 };
    case 'slow':
      throw new Error('slow links are not available with --netns (nftables drops, it does not delay).');
  }
}
