/**
 * The default chaos network: nodes on loopback, each dialling every peer through the proxy of that
 * directed link (`peerDialOverrides`), so every link can be cut, stalled, slowed or made lossy on
 * its own (proxy.ts).
 */
import type { Rng } from '@tessera/core';
import { freePortBlock } from '@tessera/server/local-cluster';
import type { ChaosNetwork, NodeLaunch } from './network.js';
import { type LinkFault, LinkProxy } from './proxy.js';

const HOST = '127.0.0.1';

interface Ports {
  readonly httpPort: number;
  readonly peerPort: number;
}

export class ProxyNetwork implements ChaosNetwork {
  private readonly ports = new Map<string, Ports>();
  private readonly links = new Map<string, LinkProxy>();

  private constructor(private readonly ids: readonly string[]) {}

  /** Ports for every node and a listening proxy for every directed link. */
  static async create(ids: readonly string[], random: Rng): Promise<ProxyNetwork> {
    const network = new ProxyNetwork(ids);
    const linkCount = ids.length * (ids.length - 1);
    const base = await freePortBlock(2 * ids.length + linkCount);
    ids.forEach((id, i) => {
      network.ports.set(id, { httpPort: base + i, peerPort: base + ids.length + i });
    });
    let port = base + 2 * ids.length;
    for (const from of ids) {
      for (const to of ids) {
        if (from === to) continue;
        const proxy = new LinkProxy(from, to, { host: HOST, port: network.portsOf(to).peerPort }, random);
        await proxy.listen(port++);
        network.links.set(linkId(from, to), proxy);
      }
    }
    return network;
  }

  launch(id: string): NodeLaunch {
    const overrides = Object.fromEntries(
      this.ids.filter((other) => other !== id).map((other) => [other, this.dialAddress(id, other)]),
    );
    return { host: HOST, ...this.portsOf(id), args: [], config: { peerDialOverrides: overrides } };
  }

  url(id: string): string {
    return `http://${HOST}:${this.portsOf(id).httpPort}`;
  }

  /** The proxy of that link. */
  dialAddress(from: string, to: string): string {
    return this.link(from, to).address;
  }

  async setLink(from: string, to: string, fault: LinkFault): Promise<void> {
    this.link(from, to).set(fault);
  }

  async healLinks(): Promise<void> {
    for (const proxy of this.links.values()) proxy.set({ kind: 'ok' });
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values()].map((p) => p.close()));
  }

  private portsOf(id: string): Ports {
    const ports = this.ports.get(id);
    if (ports === undefined) throw new Error(`no node ${id}`);
    return ports;
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
