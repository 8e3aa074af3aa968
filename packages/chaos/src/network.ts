/**
 * Where the chaos cluster's nodes live and how their links fail: on loopback behind fault-injecting
 * TCP proxies (proxy-network.ts, the default), or in network namespaces with their own addresses,
 * TLS, and nftables partitions (netns/chaos-network.ts, `--netns`). The cluster and the nemesis
 * see only this interface.
 */
import type { LinkFault } from './proxy.js';

/** How to start one node: its addresses and what `tessera start` gets besides the usual flags. */
export interface NodeLaunch {
  /** Bind and advertised host; the HTTP and peer ports. */
  readonly host: string;
  readonly httpPort: number;
  readonly peerPort: number;
  /** Extra `tessera start` flags (TLS, tokens, advertised addresses). */
  readonly args: readonly string[];
  /** Extra fields of its config file (e.g. `peerDialOverrides`). */
  readonly config: Readonly<Record<string, unknown>>;
  /** A command it runs under (e.g. `ip netns exec NS`). */
  readonly wrapper?: readonly string[];
  /** The CA of its HTTPS certificate, when it serves HTTPS. */
  readonly caFile?: string;
}

export interface ChaosNetwork {
  launch(id: string): NodeLaunch;
  /** The node's HTTP API, as this process reaches it. */
  url(id: string): string;
  /** The address node `from` dials to reach node `to`'s peer port (a seed, a join). */
  dialAddress(from: string, to: string): string;
  /** The fault of the directed link `from -> to` (`from`'s connections to `to`). */
  setLink(from: string, to: string, fault: LinkFault): Promise<void>;
  /** Every link back to normal. */
  healLinks(): Promise<void>;
  close(): Promise<void>;
}
