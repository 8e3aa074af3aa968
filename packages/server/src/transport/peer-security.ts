/** The server side of peer security for a node: its TLS credentials and the guard on its cluster state. */
import type { ServerCredentials, ServerInterceptor } from '@grpc/grpc-js';
import type { ClusterState, TesseraError } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerSecurity } from './credentials.js';
import { peerGuard } from './peer-guard.js';

export interface PeerServerGuard {
  readonly credentials: ServerCredentials;
  readonly interceptors: ServerInterceptor[];
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
  const guard = peerGuard(
    { security: security.server, state, ...(fenced === undefined ? {} : { fenced }) },
    log,
  );
  return { credentials: security.server.credentials, interceptors: [guard] };
}
