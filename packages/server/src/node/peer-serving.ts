/**
 * The gRPC side of a node: listens before the node has a cluster state or a store, so a peer that
 * admitted it can reach it at once; data calls get NODE_NOT_READY until `ready`.
 */
import { TesseraError } from '@tessera/core';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { PartitionSource } from '../transfer/source.js';
import type { PeerSecurity } from '../transport/credentials.js';
import { type PeerServerHandle, startPeerServer } from '../transport/grpc-server.js';
import type { KeyListingSource, StrongSource } from '../transport/peer-api.js';
import { peerServerSecurity } from '../transport/peer-security.js';
import { splitHostPort } from '../util/host-port.js';
import type { NodeParts } from './assembly.js';
import { PeerHandler } from './peer-handler.js';

export interface PeerServing {
  /** Serves data calls and transfers from these parts from now on. */
  ready(
    parts: Pick<
      NodeParts,
      'store' | 'hints' | 'coordinator' | 'merkle' | 'gossip' | 'partitionKeys' | 'strong'
    >,
  ): void;
  readonly server: PeerServerHandle;
  /** What this node served to receivers of partition transfers. */
  readonly sent: PartitionSource['sent'];
}

export async function listenForPeers(
  config: Pick<Config, 'nodeId' | 'peer' | 'peerInflightMax'>,
  view: ClusterView,
  security: PeerSecurity,
  log: Logger,
  /** Why this node serves no peer (its data dir is fenced: fence.ts), if it does not. */
  fenced?: () => TesseraError | undefined,
): Promise<PeerServing> {
  const handler = new PeerHandler(config.nodeId, view, log.child({ component: 'peer-handler' }));
  const source = new PartitionSource();
  let listing: KeyListingSource | undefined;
  let strong: StrongSource | undefined;
  const server = await startPeerServer(handler, {
    ...splitHostPort(config.peer),
    logger: log.child({ component: 'grpc' }),
    inflightMax: config.peerInflightMax,
    transfer: source,
    listing: {
      listKeys: async (request) => {
        if (listing === undefined)
          throw new TesseraError('NODE_NOT_READY', 'This node is still starting; retry shortly.');
        return listing.listKeys(request);
      },
    },
    strong: {
      strong: async (payload) => {
        if (strong === undefined)
          throw new TesseraError('NODE_NOT_READY', 'This node is still starting; retry shortly.');
        return strong.strong(payload);
      },
    },
    security: peerServerSecurity(security, () => view.state, log.child({ component: 'peer-guard' }), fenced),
  });
  const ready: PeerServing['ready'] = (parts) => {
    const { store, hints, coordinator, merkle, gossip, partitionKeys } = parts;
    handler.ready({ store, coordinator, hints, merkle });
    source.ready(store);
    listing = partitionKeys;
    strong = { strong: (payload) => parts.strong.serve(payload) };
    handler.changed = () => gossip.spread();
  };
  return { ready, server, sent: source.sent };
}
