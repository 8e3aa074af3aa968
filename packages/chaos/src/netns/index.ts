/**
 * Nodes on separate hosts, on one Linux machine: network namespaces on a bridge (network.ts),
 * nftables partitions (firewall.ts), TLS for nodes on those addresses (tls.ts). Needs root, `ip`
 * and `nft` (preflight.ts). See docs/testing.md, "Multi-host test in network namespaces".
 */
export { type LinkRule, NetnsFirewall } from './firewall.js';
export { sweepLeftovers } from './names.js';
export { HOSTS_MAX, type NetnsHost, NetnsNetwork } from './network.js';
export { checkNetnsSupport } from './preflight.js';
export { ClusterTls, type TlsNode } from './tls.js';
