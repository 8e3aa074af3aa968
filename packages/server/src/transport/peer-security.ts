/** The server side of peer security for a node: its TLS material and the guard on its cluster state. */
import type { ServerInterceptor } from '@grpc/grpc-js';
import type { ClusterState, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerSecurity, PeerTlsPems } from './credentials.js';
import { type PeerGatekeeper, peerGatekeeper, peerGuard } from './peer-guard.js';

export interface PeerServerGuard {
  readonly interceptors: ServerInterceptor[];
  /** The same guard for the replication pipe's own framing (pipe-socket-server.ts). */
  readonly gatekeeper: PeerGatekeeper;
  /** The node's certificate, key and cluster CA, when peers use mTLS (peer-listener.ts). */
  readonly tls?: PeerTlsPems;
}

/**
 * `state` is the node's cluster state, undefined while it starts (node/cluster-view); `fenced`
 * says why the node serves nothing, if it does not (node/fence.ts).
 */
export function peerServerSecurity(
  security: PeerSecurity,
  state: () => ClusterState | undefined,
  log: Logger,
  fenced?: () => TesseraError | undefined,
): PeerServerGuard {
  const settings = { security: security.server, state, ...(fenced === undefined ? {} : { fenced }) };
  const gatekeeper = peerGatekeeper(settings, log);
  const guard = peerGuard(settings, log, gatekeeper);
  const tls = security.server.tls;
  return {
    interceptors: [guard],
    gatekeeper,
    ...(tls === undefined ? {} : { tls }),
  };
}
