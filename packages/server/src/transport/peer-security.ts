/** The server side of peer security for a node: its TLS credentials and the guard on its cluster state. */
import type { ServerCredentials, ServerInterceptor } from '@grpc/grpc-js';
import type { ClusterState } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerSecurity } from './credentials.js';
import { peerGuard } from './peer-guard.js';

export interface PeerServerGuard {
  readonly credentials: ServerCredentials;
  readonly interceptors: ServerInterceptor[];
}

/** `state` is the node's cluster state, undefined while it starts (node/cluster-view). */
export function peerServerSecurity(
  security: PeerSecurity,
  state: () => ClusterState | undefined,
  log: Logger,
): PeerServerGuard {
  const guard = peerGuard({ security: security.server, state }, log);
  return { credentials: security.server.credentials, interceptors: [guard] };
}
