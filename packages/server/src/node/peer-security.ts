/** The server side of peer security for a node: its TLS credentials and the guard on its cluster view. */
import type { ServerCredentials, ServerInterceptor } from '@grpc/grpc-js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Logger } from '../logger.js';
import type { PeerSecurity } from '../transport/credentials.js';
import { peerGuard } from '../transport/peer-guard.js';

export function peerServerSecurity(
  security: PeerSecurity,
  view: ClusterView,
  log: Logger,
): { credentials: ServerCredentials; interceptors: ServerInterceptor[] } {
  const guard = peerGuard({ security: security.server, state: () => view.state }, log);
  return { credentials: security.server.credentials, interceptors: [guard] };
}
