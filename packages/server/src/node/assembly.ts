/**
 * The assembly of a node: its parts built and wired from its config, its opened storage, its clock
 * and a way to reach peers. Nothing here listens, starts a timer or calls a peer; the lifecycle
 * (node.ts) opens storage, listens, starts the background work, and closes it all in order.
 */
import { AntiEntropy } from '../anti-entropy/anti-entropy.js';
import { MerkleResponder } from '../anti-entropy/responder.js';
import { AdmissionController } from '../background/admission.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import { Gossip } from '../cluster/gossip.js';
import { type PeerClientFactory, PeerDirectory } from '../cluster/peers.js';
import { advertised, type Config, STATE_BYTES_MAX } from '../config.js';
import { Coordinator } from '../coordinator/coordinator.js';
import { Coverage } from '../coordinator/coverage.js';
import { PartitionKeys, scanPartitionKeys } from '../coordinator/partition-keys.js';
import { Handoff } from '../handoff/handoff.js';
import type { Logger } from '../logger.js';
import type { StorageEngine } from '../storage/engine.js';
import { HintStore } from '../storage/hint-store.js';
import { keyFilterSaturated } from '../storage/key-filter.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { StrongService } from '../strong/service.js';
import { FaultSwitches } from './fault-switches.js';
import type { Incarnation } from './incarnation.js';
import {
  NodeMetrics,
  registerAntiEntropyMetrics,
  registerBackgroundMetrics,
  registerClusterMetrics,
  registerStorageMetrics,
  registerStrongMetrics,
} from './metrics.js';
import { registerKeyFilterMetrics } from './metrics-key-filter.js';
import { registerStateCacheMetrics } from './metrics-state-cache.js';

/** What a node is assembled from. */
export interface NodeGround {
  readonly config: Config;
  /** Opened. */
  readonly engine: StorageEngine;
  readonly incarnation: Incarnation;
  /** Holding the cluster state the node starts from. */
  readonly view: ClusterView;
  readonly now: () => number;
  readonly random: () => number;
  /** Opens a client to a peer's address (gRPC in a node process). */
  readonly connect: PeerClientFactory;
  readonly log: Logger;
}

/** Everything a node is made of. */
export interface NodeParts extends NodeGround {
  readonly faults: FaultSwitches;
  readonly peers: PeerDirectory;
  readonly store: ReplicaStore;
  readonly hints: HintStore;
  readonly merkle: MerkleResponder;
  readonly coordinator: Coordinator;
  /** Key listings this node answers (coverage queries over the partitions). */
  readonly coverage: Coverage;
  /** Key listings this node serves to peers, for the partitions it replicates. */
  readonly partitionKeys: PartitionKeys;
  readonly admission: AdmissionController;
  readonly handoff: Handoff;
  readonly antiEntropy: AntiEntropy;
  readonly gossip: Gossip;
  /** Strong keys and transactions (docs/transactions.md). */
  readonly strong: StrongService;
  readonly metrics: NodeMetrics;
}

/** The parts the others are built on. */
type Base = NodeGround & Pick<NodeParts, 'faults' | 'peers' | 'store' | 'hints' | 'admission'>;

export function assembleNode(ground: NodeGround): NodeParts {
  const metrics = new NodeMetrics();
  const base: Base = {
    ...ground,
    faults: new FaultSwitches(),
    peers: peerDirectory(ground, metrics),
    ...stores(ground),
    admission: admissionOf(ground),
  };
  const parts = {
    ...base,
    coordinator: coordinatorOf(base),
    coverage: coverageOf(base),
    partitionKeys: partitionKeysOf(base),
    merkle: merkleOf(base),
    handoff: handoffOf(base),
    antiEntropy: antiEntropyOf(base),
    gossip: gossipOf(base),
    strong: strongOf(base),
  };
  registerPartMetrics(metrics, parts);
  return { ...parts, metrics };
}

function peerDirectory({ config, view, connect, now, log }: NodeGround, metrics: NodeMetrics): PeerDirectory {
  const peers = new PeerDirectory(
    config.nodeId,
    connect,
    config.peerRetryMs,
    now,
    log.child({ component: 'peers' }),
    config.peerDialOverrides,
    metrics,
  );
  peers.sync(view.require());
  view.onChange((state) => peers.sync(state));
  return peers;
}

/** The stores on the engine; both still to be opened (`openStores`). */
function stores({ config, engine, view, now, log }: NodeGround): Pick<NodeParts, 'store' | 'hints'> {
  const storeLog = log.child({ component: 'store' });
  const store = new ReplicaStore(engine, {
    partitionCount: view.require().ring.partitionCount,
    sync: config.durability === 'fsync',
    syncUpdates: config.durability === 'fsync-one',
    siblingsMax: config.siblingsMax,
    stateBytesMax: STATE_BYTES_MAX,
    stateCacheBytesMax: config.stateCacheBytesMax,
    keyFilterBytesMax: config.keyFilterBytesMax,
    onKeyFilterSaturated: (stats) => storeLog.warn({ keyFilter: stats }, keyFilterSaturated(stats.bytesMax)),
    commitHoldMs: config.commitHoldMs,
    now,
  });
  const hints = new HintStore(engine, {
    hintsMax: config.hintsMax,
    hintBytesMax: config.hintBytesMax,
    sync: config.durability === 'fsync',
    now,
  });
  return { store, hints };
}

/** Reads what the stores hold on disk; before this the node must not serve. */
export async function openStores(parts: Pick<NodeParts, 'store' | 'hints'>): Promise<void> {
  await parts.store.open();
  await parts.hints.open();
}

function coordinatorOf(p: Base): Coordinator {
  return new Coordinator({
    incarnation: p.incarnation,
    crashMidWrite: {
      take: () => p.faults.takeCrashMidWrite(),
      die: () => process.kill(process.pid, 'SIGKILL'),
    },
    hints: p.hints,
    self: p.config.nodeId,
    settings: p.config,
    ring: () => p.view.require().ring,
    nextRing: () => p.view.state?.pending?.next,
    store: p.store,
    peers: p.peers,
    now: p.now,
    log: p.log.child({ component: 'coordinator' }),
  });
}

function coverageOf(p: Base): Coverage {
  const { config, view, store, admission } = p;
  return new Coverage({
    self: config.nodeId,
    n: config.n,
    ring: () => view.require().ring,
    local: (request) => scanPartitionKeys(store, request),
    peers: p.peers,
    // Listings are charged to the transfer budget: both scan partitions page by page.
    gate: { tryAcquire: (cost) => admission.tryAcquire(cost, 'listing') },
    gateCostMax: config.backgroundRateMinPerSec,
    peerTimeoutMs: config.peerTimeoutMs,
    now: p.now,
  });
}

function partitionKeysOf({ config, view, store }: Base): PartitionKeys {
  return new PartitionKeys({ self: config.nodeId, n: config.n, ring: () => view.require().ring, store });
}

function merkleOf({ config, view, store }: Base): MerkleResponder {
  return new MerkleResponder({ self: config.nodeId, n: config.n, ring: () => view.require().ring, store });
}

function admissionOf({ config, now }: NodeGround): AdmissionController {
  return new AdmissionController({
    rateMaxPerSec: config.backgroundRateMaxPerSec,
    rateMinPerSec: config.backgroundRateMinPerSec,
    latencyTargetMs: config.foregroundLatencyTargetMs,
    windowMs: 1_000,
    now,
  });
}

function handoffOf(p: Base): Handoff {
  const { config, view, store } = p;
  return new Handoff({
    hints: p.hints,
    peers: p.peers,
    gate: p.admission,
    batchMax: config.handoffBatchMax,
    intervalMs: config.handoffIntervalMs,
    timeoutMs: config.peerTimeoutMs,
    hintTtlMs: config.hintTtlMs,
    now: p.now,
    log: p.log.child({ component: 'handoff' }),
    placement: {
      self: config.nodeId,
      n: config.n,
      ring: () => view.state?.ring,
      nextRing: () => view.state?.pending?.next,
      mergeLocal: (key, state) => store.merge(key, state),
    },
  });
}

function antiEntropyOf(p: Base): AntiEntropy {
  const { config } = p;
  return new AntiEntropy({
    self: config.nodeId,
    n: config.n,
    ring: () => p.view.require().ring,
    store: p.store,
    peers: p.peers,
    gate: p.admission,
    intervalMs: config.antiEntropyIntervalMs,
    tombstoneGraceMs: config.tombstoneGraceMs,
    limits: {
      timeoutMs: config.antiEntropyTimeoutMs,
      keysPerExchangeMax: config.antiEntropyKeysPerExchangeMax,
      bytesPerExchangeMax: config.antiEntropyBytesPerExchangeMax,
    },
    now: p.now,
    random: p.random,
    log: p.log.child({ component: 'anti-entropy' }),
  });
}

function gossipOf({ config, view, peers, random, connect, log }: Base): Gossip {
  return new Gossip({
    view,
    peers,
    intervalMs: config.gossipIntervalMs,
    timeoutMs: config.peerTimeoutMs,
    random,
    log: log.child({ component: 'gossip' }),
    seeds: config.seeds,
    seedIntervalMs: config.seedGossipIntervalMs,
    selfPeers: [config.peer, advertised(config).peer],
    connect,
  });
}

function strongOf({ config, view, peers, engine, now, random, log, faults }: Base): StrongService {
  return new StrongService({
    self: config.nodeId,
    n: config.n,
    settings: {
      namespaces: config.strongNamespaces,
      txnTimeoutMs: config.txnTimeoutMs,
      phaseTimeoutMs: config.peerTimeoutMs,
      requestTimeoutMs: config.strongTimeoutMs,
      valueBytesMax: config.valueBytesMax,
    },
    state: () => view.require(),
    peers,
    engine,
    sync: config.durability !== 'process',
    now,
    random,
    log: log.child({ component: 'strong' }),
    crashAt: (step) => faults.takeCrashMidTransaction(step),
  });
}

/** The families read at scrape time from the parts (the membership ones: node.ts, once it runs). */
function registerPartMetrics(metrics: NodeMetrics, p: Omit<NodeParts, 'metrics'>): void {
  const { registry } = metrics;
  registerBackgroundMetrics(registry, {
    hints: () => p.hints.targets(),
    hintsOldestMs: () => p.hints.oldestByTarget(),
    now: p.now,
    handoff: () => p.handoff.stats(),
    admission: () => p.admission.stats(),
  });
  registerAntiEntropyMetrics(registry, { stats: () => p.antiEntropy.stats(), now: p.now });
  registerStorageMetrics(registry, p.config.storage === 'memory' ? undefined : p.config.dataDir);
  registerStateCacheMetrics(registry, () => p.store.cacheStats());
  registerKeyFilterMetrics(registry, () => p.store.keyFilterStats());
  registerStrongMetrics(registry, () => ({ ...p.strong.sweeper.stats }));
  registerClusterMetrics(registry, {
    peersDown: () => p.peers.health().filter((h) => h.down).length,
    ringVersion: () => p.view.require().ring.version,
  });
}
