/** The server side of peer security for a node: its TLS credentials and the guard on its cluster state. */
import type { ServerCredentials, ServerInterceptor } from '@grpc/grpc-js';
import type { ClusterState, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerSecurity, PeerTlsPems } from './credentials.js';
import { type PeerGatekeeper, peerGatekeeper, peerGuard } from './peer-guard.js';

export interface PeerServerGuard {
  readonly credentials: ServerCredentials;
  readonly interceptors: ServerInterceptor[];
  /** The same guard for the replication pipe's own framing (pipe-socket-server.ts). */
  readonly gatekeeper: PeerGatekeeper;
  /** The PEMs behind `credentials`, when peers use mTLS. */
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
    credentials: security.server.credentials,
    interceptors: [guard],
    gatekeeper,
    ...(tls === undefined ? {} : { tls }),
  };
}
