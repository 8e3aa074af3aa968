/**
 * A Tessera node: opens storage, joins or creates a cluster, serves peers over gRPC and clients
 * over HTTP, and gossips. Everything is wired here; the pieces know only their interfaces.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ClusterState, createRing, type Member, TesseraError } from '@tessera/core';
import type { FastifyInstance } from 'fastify';
import { AntiEntropy } from '../anti-entropy/anti-entropy.js';
import { MerkleResponder } from '../anti-entropy/responder.js';
import { AdmissionController } from '../background/admission.js';
import { ClusterView } from '../cluster/cluster-view.js';
import { Gossip } from '../cluster/gossip.js';
import { PeerDirectory } from '../cluster/peers.js';
import type { Config } from '../config.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { Handoff } from '../handoff/handoff.js';
import { createHttpApp } from '../http/app.js';
import type { Logger } from '../logger.js';
import { enforceExposure } from '../security/exposure.js';
import type { StorageEngine } from '../storage/engine.js';
import { HintStore } from '../storage/hint-store.js';
import { LevelEngine } from '../storage/level-engine.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import type { MembershipService } from '../transfer/membership-service.js';
import { PartitionSource } from '../transfer/source.js';
import { loadPeerSecurity, type PeerSecurity } from '../transport/credentials.js';
import { createPeerClient } from '../transport/grpc-client.js';
import { startPeerServer } from '../transport/grpc-server.js';
import { nodeClock } from './clock.js';
import { FaultSwitches } from './fault-switches.js';
import { Incarnation } from './incarnation.js';
import { joinThroughSeeds } from './join.js';
import { startMembership } from './membership-wiring.js';
import { NodeMetrics, registerBackgroundMetrics } from './metrics.js';
import { PeerHandler } from './peer-handler.js';
import { peerServerSecurity } from './peer-security.js';

/** Everything a running node is made of. */
export interface NodeParts {
  readonly config: Config;
  readonly view: ClusterView;
  readonly peers: PeerDirectory;
  readonly coordinator: Coordinator;
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly handoff: Handoff;
  readonly admission: AdmissionController;
  readonly antiEntropy: AntiEntropy;
  readonly metrics: NodeMetrics;
  readonly engine: StorageEngine;
  readonly gossip: Gossip;
  readonly membership: MembershipService;
  readonly faults: FaultSwitches;
  readonly incarnation: Incarnation;
}

export class TesseraNode {
  readonly config: Config;
  readonly view: ClusterView;
  readonly peers: PeerDirectory;
  readonly coordinator: Coordinator;
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly handoff: Handoff;
  readonly admission: AdmissionController;
  readonly antiEntropy: AntiEntropy;
  readonly metrics: NodeMetrics;
  readonly membership: MembershipService;
  readonly faults: FaultSwitches;

  private constructor(
    private readonly parts: NodeParts,
    private readonly closers: Array<() => Promise<void>>,
    private readonly log: Logger,
  ) {
    ({
      config: this.config,
      view: this.view,
      peers: this.peers,
      coordinator: this.coordinator,
      store: this.store,
      hints: this.hints,
      handoff: this.handoff,
      admission: this.admission,
      antiEntropy: this.antiEntropy,
      metrics: this.metrics,
      membership: this.membership,
      faults: this.faults,
    } = parts);
  }

  static async start(config: Config, log: Logger): Promise<TesseraNode> {
    const closers: Array<() => Promise<void>> = [];
    try {
      return await TesseraNode.boot(config, log, closers);
    } catch (err) {
      for (const close of closers.reverse()) await close().catch(() => {});
      throw err;
    }
  }

  private static async boot(
    config: Config,
    log: Logger,
    closers: Array<() => Promise<void>>,
  ): Promise<TesseraNode> {
    enforceExposure(config, log);
    const now = nodeClock(config);
    const engine = await openEngine(config);
    closers.push(() => engine.close());
    // Closed just before the engine, after everything that writes: only then is the stop clean.
    const incarnation = await Incarnation.open(engine, { node: config.nodeId });
    const faults = new FaultSwitches();
    closers.push(() => incarnation.closeCleanly());
    const view = new ClusterView(engine);
    const self: Member = {
      nodeId: config.nodeId,
      http: config.http,
      peer: config.peer,
      status: 'member',
      incarnation: 1,
    };
    const handler = new PeerHandler(config.nodeId, view, log.child({ component: 'peer-handler' }));
    const [peerHost, peerPort] = splitHostPort(config.peer);
    const source = new PartitionSource();
    const security = loadPeerSecurity(config);
    const server = await startPeerServer(handler, {
      host: peerHost,
      port: peerPort,
      logger: log.child({ component: 'grpc' }),
      inflightMax: config.peerInflightMax,
      transfer: source,
      security: peerServerSecurity(security, view, log.child({ component: 'peer-guard' })),
    });
    closers.push(() => server.close());

    const state =
      (await view.load(config.nodeId)) ?? (await TesseraNode.firstState(config, self, view, log, security));
    log.info(
      { clusterId: state.clusterId, ringVersion: state.ring.version, members: state.members.length },
      'cluster state ready',
    );

    const peers = new PeerDirectory(
      config.nodeId,
      (address) =>
        createPeerClient(address, {
          logger: log.child({ component: 'peer-client' }),
          security: security.client,
        }),
      config.peerRetryMs,
      now,
      log.child({ component: 'peers' }),
      config.peerDialOverrides,
    );
    peers.sync(state);
    view.onChange((s) => peers.sync(s));
    closers.push(async () => peers.close());

    const store = new ReplicaStore(engine, {
      partitionCount: state.ring.partitionCount,
      sync: config.durability === 'fsync',
      syncUpdates: config.durability === 'fsync-one',
      siblingsMax: config.siblingsMax,
      now,
    });
    await store.open();
    const merkle = new MerkleResponder({
      self: config.nodeId,
      n: config.n,
      ring: () => view.require().ring,
      store,
    });
    const hints = new HintStore(engine, {
      hintsMax: config.hintsMax,
      hintBytesMax: config.hintBytesMax,
      sync: config.durability === 'fsync',
      now,
    });
    await hints.open();
    const coordinator = new Coordinator({
      incarnation,
      crashArmed: () => faults.takeCrashMidWrite(),
      hints,
      self: config.nodeId,
      settings: config,
      ring: () => view.require().ring,
      nextRing: () => view.state?.pending?.next,
      store,
      peers,
      now,
      log: log.child({ component: 'coordinator' }),
    });
    handler.ready({ store, coordinator, hints, merkle });
    source.ready(store);
    const admission = new AdmissionController({
      rateMaxPerSec: config.backgroundRateMaxPerSec,
      rateMinPerSec: config.backgroundRateMinPerSec,
      latencyTargetMs: config.foregroundLatencyTargetMs,
      windowMs: 1_000,
      now,
    });
    const handoff = new Handoff({
      hints,
      peers,
      gate: admission,
      batchMax: config.handoffBatchMax,
      intervalMs: config.handoffIntervalMs,
      timeoutMs: config.peerTimeoutMs,
      hintTtlMs: config.hintTtlMs,
      now,
      log: log.child({ component: 'handoff' }),
      placement: {
        self: config.nodeId,
        n: config.n,
        ring: () => view.state?.ring,
        nextRing: () => view.state?.pending?.next,
        mergeLocal: (key, state) => store.merge(key, state),
      },
    });
    handoff.start();
    closers.push(async () => handoff.stop());
    const antiEntropy = new AntiEntropy({
      self: config.nodeId,
      n: config.n,
      ring: () => view.require().ring,
      store,
      peers,
      gate: admission,
      intervalMs: config.antiEntropyIntervalMs,
      tombstoneGraceMs: config.tombstoneGraceMs,
      limits: {
        timeoutMs: config.antiEntropyTimeoutMs,
        keysPerExchangeMax: config.antiEntropyKeysPerExchangeMax,
        bytesPerExchangeMax: config.antiEntropyBytesPerExchangeMax,
      },
      now,
      random: Math.random,
      log: log.child({ component: 'anti-entropy' }),
    });
    antiEntropy.start();
    closers.push(() => antiEntropy.stop());

    const gossip = new Gossip({
      view,
      peers,
      intervalMs: config.gossipIntervalMs,
      timeoutMs: config.peerTimeoutMs,
      random: Math.random,
      log: log.child({ component: 'gossip' }),
      seeds: config.seeds,
      seedIntervalMs: config.seedGossipIntervalMs,
      selfPeer: config.peer,
      connect: (address) =>
        createPeerClient(address, {
          logger: log.child({ component: 'peer-client' }),
          security: security.client,
        }),
    });
    gossip.start();
    closers.push(async () => gossip.stop());
    handler.changed = () => gossip.spread();
    const membership = startMembership({
      config,
      view,
      store,
      engine,
      peers,
      admission,
      gossip,
      self,
      log,
      security: security.client,
      now,
    });
    closers.push(async () => membership.stop());

    const metrics = new NodeMetrics();
    registerBackgroundMetrics(metrics.registry, {
      hints: () => hints.targets(),
      handoff: () => handoff.stats(),
      admission: () => admission.stats(),
      antiEntropy: () => antiEntropy.stats(),
    });
    const node = new TesseraNode(
      {
        config,
        view,
        peers,
        coordinator,
        store,
        hints,
        handoff,
        admission,
        antiEntropy,
        metrics,
        engine,
        gossip,
        membership,
        faults,
        incarnation,
      },
      closers,
      log,
    );
    const app = createHttpApp(node, log.child({ component: 'http' }));
    const [httpHost, httpPort] = splitHostPort(config.http);
    await app.listen({ host: httpHost, port: httpPort });
    closers.push(() => app.close());
    const tls = { httpTls: config.httpTls !== undefined, peerTls: config.peerTls !== undefined };
    log.info({ http: config.http, peer: config.peer, incarnation: incarnation.tag, ...tls }, 'node ready');
    return node;
  }

  /** A new data dir: create a cluster, or join the one the seeds belong to. */
  private static async firstState(
    config: Config,
    self: Member,
    view: ClusterView,
    log: Logger,
    security: PeerSecurity,
  ): Promise<ClusterState> {
    if (config.seeds.length > 0) {
      const joined = await joinThroughSeeds(
        self,
        config.seeds,
        log.child({ component: 'join' }),
        security.client,
      );
      await view.set(joined);
      return joined;
    }
    const created: ClusterState = {
      clusterId: randomUUID(),
      ring: createRing(config.partitions, config.nodeId),
      members: [self],
    };
    await view.set(created);
    log.info({ clusterId: created.clusterId, partitions: config.partitions }, 'created a new cluster');
    return created;
  }

  get nodeId(): string {
    return this.config.nodeId;
  }

  /** The incarnation tag in this node's actor ids (node/incarnation.ts). */
  get incarnation(): string {
    return this.parts.incarnation.tag;
  }

  get engineKind(): string {
    return this.parts.engine.kind;
  }

  gossipRounds(): number {
    return this.parts.gossip.rounds;
  }

  async stop(): Promise<void> {
    this.log.info('node stopping');
    for (const close of this.closers.reverse())
      await close().catch((err: unknown) => this.log.warn({ err }, 'error while stopping'));
  }
}

async function openEngine(config: Config): Promise<StorageEngine> {
  if (config.storage === 'memory') {
    const engine = new MemoryEngine();
    await engine.open();
    return engine;
  }
  await mkdir(config.dataDir, { recursive: true });
  const engine = new LevelEngine(join(config.dataDir, 'db'));
  await engine.open();
  return engine;
}

export function splitHostPort(address: string): [string, number] {
  const i = address.lastIndexOf(':');
  if (i <= 0) throw new TesseraError('BAD_REQUEST', `Expected HOST:PORT, got "${address}".`);
  return [address.slice(0, i).replace(/^\[|\]$/g, ''), Number(address.slice(i + 1))];
}

export type { FastifyInstance };
