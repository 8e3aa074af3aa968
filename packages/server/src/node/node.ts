/**
 * A Tessera node's lifecycle. Start: open storage, listen for peers, load (or create, or join) the
 * cluster state, assemble the parts (assembly.ts), open the stores, start the background work,
 * then serve clients through the front given (the HTTP API: server.ts). Stop: the reverse. A
 * start that fails closes what it opened.
 */
import { createServer } from 'node:net';
import { TesseraError } from '@tessera/core';
import { ClusterView } from '../cluster/cluster-view.js';
import type { PeerClientFactory } from '../cluster/peers.js';
import { advertised, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { enforceExposure } from '../security/exposure.js';
import type { Lowered } from '../storage/compaction-priority.js';
import type { MembershipService } from '../transfer/membership-service.js';
import { loadPeerSecurity, type PeerClientSecurity } from '../transport/credentials.js';
import { createPeerClient } from '../transport/grpc-client.js';
import { type HostPort, splitHostPort } from '../util/host-port.js';
import { assembleNode, type NodeParts, openStores } from './assembly.js';
import { nodeClock } from './clock.js';
import { Closers } from './closers.js';
import { loadClusterState, selfMember } from './cluster-state.js';
import { fencedConnector, NodeFence } from './fence.js';
import { applyHeapGrowth } from './heap-growth.js';
import { Incarnation } from './incarnation.js';
import { startMembership } from './membership-wiring.js';
import { registerMembershipMetrics } from './metrics.js';
import { openEngine } from './open-engine.js';
import { listenForPeers, type PeerServing } from './peer-serving.js';

/** A started node: its parts, and the membership machinery running on them. */
export interface RunningNode extends NodeParts {
  readonly membership: MembershipService;
  /** Whether this node's data dir is fenced (removed, left, superseded): then it serves nothing. */
  readonly fence: NodeFence;
}

/** Serves clients of a started node at `address`; started last, closed first. */
export type ClientFront = (node: RunningNode, address: HostPort) => Promise<{ close(): Promise<void> }>;

export class TesseraNode {
  private constructor(
    readonly parts: RunningNode,
    private readonly closers: Closers,
    private readonly log: Logger,
  ) {}

  static async start(config: Config, log: Logger, front: ClientFront): Promise<TesseraNode> {
    const closers = new Closers();
    try {
      return new TesseraNode(await boot(config, log, front, closers), closers, log);
    } catch (err) {
      await closers.closeAll();
      throw err;
    }
  }

  get nodeId(): string {
    return this.parts.config.nodeId;
  }

  async stop(): Promise<void> {
    this.log.info('node stopping');
    await this.closers.closeAll((err) => this.log.warn({ err }, 'error while stopping'));
  }
}

async function boot(config: Config, log: Logger, front: ClientFront, closers: Closers): Promise<RunningNode> {
  enforceExposure(config, log);
  applyHeapGrowth(config.heapGrowingPercent);
  const fence = new NodeFence(config.nodeId, log.child({ component: 'fence' }));
  const security = loadPeerSecurity(config, () => fence.metadata());
  const { engine, compaction, priority } = await openEngine(config);
  closers.add(() => engine.close());
  logCompactionPriority(log, compaction);
  if (priority !== undefined) {
    const watch = setInterval(() => priority.check(), COMPACTION_CHECK_MS);
    watch.unref();
    closers.add(async () => clearInterval(watch));
  }
  const incarnation = await Incarnation.open(engine, { node: config.nodeId });
  // Closed just before the engine, after everything that writes: only then is the stop clean.
  closers.add(() => incarnation.closeCleanly());
  const view = new ClusterView(engine);
  fence.bind(view);
  // Checked before this node can be admitted anywhere: a start that would fail on its HTTP port
  // must fail before a seed adds it to a ring change.
  await assertCanListen(splitHostPort(config.http), 'HTTP');
  const peerServing = await listenForPeers(config, view, security, log, () => fence.refusal());
  closers.add(() => peerServing.server.close());
  await loadClusterState(config, view, log, security.client);
  fence.watch();
  const now = nodeClock(config);
  const connect = fencedConnector(peerConnector(security.client, log, config.pipeHoldMs), fence);
  const parts = assembleNode({ config, engine, incarnation, view, now, random: Math.random, connect, log });
  closers.add(async () => parts.peers.close());
  await openStores(parts);
  await parts.strong.open({ newDataDir: incarnation.newDataDir });
  peerServing.ready(parts);
  const node = startBackground({ ...parts, fence }, security.client, closers, peerServing.sent);
  const clients = await front(node, splitHostPort(config.http));
  closers.add(() => clients.close());
  const tls = { httpTls: config.httpTls !== undefined, peerTls: config.peerTls !== undefined };
  log.info(
    {
      http: config.http,
      peer: config.peer,
      advertised: advertised(config),
      incarnation: incarnation.tag,
      heapGrowingPercent: config.heapGrowingPercent,
      ...tls,
    },
    'node ready',
  );
  return node;
}

/** Fails with a clear message if `address` cannot be listened on (in use, not this host's). */
async function assertCanListen(address: HostPort, what: string): Promise<void> {
  if (address.port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: address.host, port: address.port, exclusive: true }, resolve);
    });
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new TesseraError(
      'BAD_REQUEST',
      `Cannot listen for ${what} on ${address.host}:${address.port} (${reason}). Free the port or choose another; this node joined nothing.`,
    );
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** How often LevelDB's level 0 is looked at to give its background thread its priority back. */
const COMPACTION_CHECK_MS = 1_000;

function logCompactionPriority(log: Logger, compaction: Lowered | undefined): void {
  if (compaction === undefined) return;
  if (compaction.lowered) {
    log.info(
      { threadId: compaction.threadId, nice: compaction.nice },
      "LevelDB's background thread runs at a lower priority",
    );
  } else {
    log.info({ why: compaction.why }, "LevelDB's background thread keeps its priority");
  }
}

function peerConnector(security: PeerClientSecurity, log: Logger, pipeHoldMs: number): PeerClientFactory {
  const logger = log.child({ component: 'peer-client' });
  return (address) => createPeerClient(address, { logger, security, pipeHoldMs });
}

/** How often stalled transactions are looked for (strong/sweeper.ts). */
const STRONG_SWEEP_INTERVAL_MS = 1_000;

/** Starts the timers: handoff, anti-entropy, gossip, membership changes; each stopped before the last. */
function startBackground(
  parts: NodeParts & Pick<RunningNode, 'fence'>,
  security: PeerClientSecurity,
  closers: Closers,
  sent: PeerServing['sent'],
): RunningNode {
  const { config, handoff, antiEntropy, gossip } = parts;
  handoff.start();
  closers.add(async () => handoff.stop());
  antiEntropy.start();
  closers.add(() => antiEntropy.stop());
  gossip.start();
  closers.add(async () => gossip.stop());
  const sweep = setInterval(() => void parts.strong.tick(), STRONG_SWEEP_INTERVAL_MS);
  sweep.unref();
  closers.add(async () => clearInterval(sweep));
  const membership = startMembership({ ...parts, self: selfMember(config, parts.view.tag), security, sent });
  registerMembershipMetrics(parts.metrics.registry, {
    joinsAbandoned: () => membership.joinsAbandoned,
    transfers: () => membership.transfers(),
    self: config.nodeId,
    received: () => membership.received,
  });
  closers.add(async () => membership.stop());
  // A fenced data dir takes no part in the cluster any more: nothing in the background runs.
  parts.fence.onFenced(() => {
    handoff.stop();
    gossip.stop();
    membership.stop();
    clearInterval(sweep);
    void antiEntropy.stop();
  });
  return { ...parts, membership };
}
