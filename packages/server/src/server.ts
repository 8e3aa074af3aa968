/**
 * A Tessera node serving clients: the node's lifecycle (node/node.ts) with the HTTP API (http/) as
 * its front. The one module that knows both; each route gets only the part of the node it uses.
 */
import type { Config } from './config.js';
import { type HttpAppDeps, serveHttp } from './http/app.js';
import type { Logger } from './logger.js';
import { type NodeOps, nodeOps } from './node/admin-ops.js';
import { type RunningNode, TesseraNode } from './node/node.js';
import { SnapshotService } from './node/snapshots.js';
import { nodeStatus, repairStatus } from './node/status.js';
import { leftClusterError } from './transfer/departure.js';

/** `onDrained`: the node drained (POST /v1/admin/drain) and must stop, as on SIGTERM. */
export function startServer(
  config: Config,
  log: Logger,
  options: { readonly onDrained?: () => void } = {},
): Promise<TesseraNode> {
  const httpLog = log.child({ component: 'http' });
  return TesseraNode.start(config, log, async (node, address) => {
    const ops = nodeOps(node, options.onDrained ?? (() => {}));
    const http = await serveHttp(httpDeps(node, ops), address, httpLog).catch(async (err: unknown) => {
      await ops.close();
      throw err;
    });
    return {
      close: async () => {
        await ops.close();
        await http.close();
      },
    };
  });
}

function httpDeps(node: RunningNode, ops: NodeOps): HttpAppDeps {
  return {
    config: node.config,
    metrics: node.metrics,
    coordinator: node.coordinator,
    coverage: node.coverage,
    store: node.store,
    admission: node.admission,
    ring: () => node.view.require().ring,
    status: () => ({ ...nodeStatus(node), ...ops.status() }),
    repairStatus: () => repairStatus(node),
    membership: node.membership,
    peers: node.peers,
    faults: node.faults,
    strong: node.strong,
    snapshots: new SnapshotService({
      engine: node.engine,
      nodeId: node.config.nodeId,
      clusterId: () => node.view.require().clusterId,
      log: node.log.child({ component: 'snapshot' }),
    }),
    refuseClients: () =>
      node.fence.refusal() ??
      leftClusterError(node.view.require(), node.config.nodeId) ??
      ops.drain.refusal(),
    drain: ops.drain,
    repair: ops.repair,
  };
}
