/**
 * A Tessera node serving clients: the node's lifecycle (node/node.ts) with the HTTP API (http/) as
 * its front. The one module that knows both; each route gets only the part of the node it uses.
 */
import type { Config } from './config.js';
import { type HttpAppDeps, serveHttp } from './http/app.js';
import type { Logger } from './logger.js';
import { type RunningNode, TesseraNode } from './node/node.js';
import { nodeStatus, repairStatus } from './node/status.js';

export function startServer(config: Config, log: Logger): Promise<TesseraNode> {
  const httpLog = log.child({ component: 'http' });
  return TesseraNode.start(config, log, (node, address) => serveHttp(httpDeps(node), address, httpLog));
}

function httpDeps(node: RunningNode): HttpAppDeps {
  return {
    config: node.config,
    metrics: node.metrics,
    coordinator: node.coordinator,
    coverage: node.coverage,
    store: node.store,
    admission: node.admission,
    ring: () => node.view.require().ring,
    status: () => nodeStatus(node),
    repairStatus: () => repairStatus(node),
    membership: node.membership,
    peers: node.peers,
    faults: node.faults,
    strong: node.strong,
  };
}
