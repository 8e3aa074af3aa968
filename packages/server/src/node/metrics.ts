/**
 * Prometheus metrics for one node (prom-client), served on GET /metrics. Names follow Prometheus's
 * conventions: counters end in `_total`, units are in the name (`_seconds`, `_bytes`), and a count
 * a component keeps since the node started is exported as a counter read at scrape time. The
 * families are listed in docs/operations.md ("Metrics"); deploy/ holds a dashboard and alert rules
 * that use them (checked against a running node by test/metrics-deploy.test.ts).
 */
import { type Dirent, readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Buckets of request latencies, in seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class NodeMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'tessera_requests_total',
    help: 'Client requests by operation and outcome (ok or an error code).',
    labelNames: ['op', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'tessera_request_duration_seconds',
    help: 'Client request latency by operation.',
    labelNames: ['op'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly siblings = new Histogram({
    name: 'tessera_get_siblings',
    help: 'Live siblings returned per successful get.',
    buckets: [1, 2, 3, 4, 8, 16, 64],
    registers: [this.registry],
  });
  readonly inflight = new Gauge({
    name: 'tessera_inflight_requests',
    help: 'Client requests being served right now.',
    registers: [this.registry],
  });
  readonly connectionsDropped = new Counter({
    name: 'tessera_http_connections_dropped_total',
    help: 'HTTP connections closed on arrival because httpConnectionsMax were open.',
    registers: [this.registry],
  });
  readonly peerLatency = new Histogram({
    name: 'tessera_peer_request_duration_seconds',
    help: 'Calls this node made to peers (gRPC), by method, failed ones included.',
    labelNames: ['method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly peerErrors = new Counter({
    name: 'tessera_peer_errors_total',
    help: 'Calls this node made to peers that failed, by method and error code.',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Default metrics already carry `process_` or `nodejs_` in their names.
    collectDefaultMetrics({ register: this.registry, prefix: 'tessera_' });
    registerBuildInfo(this.registry);
    registerEventLoopDelay(this.registry);
  }

  /** A call to a peer (a PeerCallObserver of cluster/peers.ts). */
  observe(method: string, seconds: number, errorCode: string | undefined): void {
    this.peerLatency.observe({ method }, seconds);
    if (errorCode !== undefined) this.peerErrors.inc({ method, code: errorCode });
  }
}

/** This package's version (src/node or dist/node -> ../../package.json). */
function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function registerBuildInfo(registry: Registry): void {
  const info = new Gauge({
    name: 'tessera_build_info',
    help: 'Always 1; labels: the Tessera version and the Node.js version this node runs.',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  });
  info.set({ version: packageVersion(), node: process.version }, 1);
}

const LOOP_RESOLUTION_MS = 10;

/** One monitor per process (the event loop is the process's), started with the first node. */
let loopDelay: IntervalHistogram | undefined;

/** Event-loop delay quantiles over the time since the previous scrape (perf_hooks). */
function registerEventLoopDelay(registry: Registry): void {
  if (loopDelay === undefined) {
    loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loopDelay.enable();
  }
  const delay = loopDelay;
  // The monitor samples with a timer every LOOP_RESOLUTION_MS and records the whole interval: the
  // delay is what exceeds it.
  const seconds = (ns: number): number =>
    Number.isFinite(ns) ? Math.max(0, ns / 1e9 - LOOP_RESOLUTION_MS / 1000) : 0;
  new Gauge({
    name: 'tessera_event_loop_delay_seconds',
    help: 'Event-loop delay quantiles since the previous scrape (a busy loop delays every request).',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      for (const q of [0.5, 0.99, 0.999])
        this.set({ quantile: String(q) }, seconds(delay.percentile(q * 100)));
    },
  });
  new Gauge({
    name: 'tessera_event_loop_delay_max_seconds',
    help: 'Longest event-loop delay since the previous scrape.',
    registers: [registry],
    collect() {
      // Registered after the quantiles, so both are read before the window restarts.
      this.set(delay.count === 0 ? 0 : seconds(delay.max));
      delay.reset();
    },
  });
}

type GaugeRead = (g: Gauge<string>) => void;

/** A gauge whose value is read from its source at every scrape. */
function scrapedGauge(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: GaugeRead | ((g: Gauge<string>) => Promise<void>),
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      return read(this);
    },
  });
}

type CounterRead = (set: (labels: Record<string, string>, total: number) => void) => void;

/** A counter whose total is read from its source at every scrape (a count kept by a component). */
function scrapedCounter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: CounterRead,
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      read((labels, total) => this.inc(labels, total));
    },
  });
}

export interface ClusterSources {
  readonly peersDown: () => number;
  readonly ringVersion: () => number;
}

/** Gauges read at scrape time from this node's view of the cluster. */
export function registerClusterMetrics(registry: Registry, src: ClusterSources): void {
  scrapedGauge(registry, 'tessera_peers_down', 'Peers this node currently believes are down.', [], (g) => {
    g.set(src.peersDown());
  });
  scrapedGauge(registry, 'tessera_ring_version', 'Version of the ring this node holds.', [], (g) => {
    g.set(src.ringVersion());
  });
}

export interface BackgroundSources {
  readonly hints: () => Map<string, { count: number; bytes: number }>;
  /** When the oldest hint held for each target was written (ms since the epoch). */
  readonly hintsOldestMs: () => Map<string, number>;
  readonly now: () => number;
  readonly handoff: () => { expired: number; delivered: number; failed: number; deferred: number };
  readonly admission: () => {
    ratePerSec: number;
    ran: Record<string, number>;
    deferred: Record<string, number>;
  };
}

/** Hints, handoff and background admission, read at scrape time. */
export function registerBackgroundMetrics(registry: Registry, src: BackgroundSources): void {
  scrapedGauge(
    registry,
    'tessera_hints_held',
    'Hints held for a down replica, by target node.',
    ['target'],
    (g) => {
      for (const [target, h] of src.hints()) g.set({ target }, h.count);
    },
  );
  scrapedGauge(
    registry,
    'tessera_hints_held_bytes',
    'Bytes of hints held, by target node.',
    ['target'],
    (g) => {
      for (const [target, h] of src.hints()) g.set({ target }, h.bytes);
    },
  );
  scrapedGauge(
    registry,
    'tessera_hints_oldest_age_seconds',
    'Age of the oldest hint held, by target node (an upper bound while part of its hints were delivered, exact after each handoff round that listed them all).',
    ['target'],
    (g) => {
      const now = src.now();
      for (const [target, ms] of src.hintsOldestMs()) g.set({ target }, Math.max(0, (now - ms) / 1000));
    },
  );
  scrapedCounter(
    registry,
    'tessera_handoff_hints_total',
    'Hints handed off since start, by outcome.',
    ['outcome'],
    (set) => {
      const s = src.handoff();
      set({ outcome: 'delivered' }, s.delivered);
      set({ outcome: 'failed' }, s.failed);
      set({ outcome: 'deferred' }, s.deferred);
      set({ outcome: 'expired' }, s.expired);
    },
  );
  scrapedCounter(
    registry,
    'tessera_background_work_total',
    'Background work units since start, by kind and whether it ran or was deferred by admission control.',
    ['kind', 'admitted'],
    (set) => {
      const s = src.admission();
      for (const [kind, n] of Object.entries(s.ran)) set({ kind, admitted: 'ran' }, n);
      for (const [kind, n] of Object.entries(s.deferred)) set({ kind, admitted: 'deferred' }, n);
    },
  );
  scrapedGauge(
    registry,
    'tessera_background_rate_per_second',
    'Background work units admitted per second right now (paper 6.5).',
    [],
    (g) => {
      g.set(src.admission().ratePerSec);
    },
  );
}

/** What anti-entropy tells of one partition (anti-entropy/types.ts PartitionSyncStatus). */
export interface PartitionSyncView {
  readonly lastExchangeMs?: number;
  readonly lastOutcome?: string;
  /** Per other replica: when the last exchange that ended in sync with it started. */
  readonly inSyncMs: Readonly<Record<string, number>>;
}

export interface AntiEntropySources {
  readonly stats: () => {
    exchanges: Readonly<Record<string, number>>;
    keysPulled: number;
    keysPushed: number;
    bytesSent: number;
    bytesReceived: number;
    tombstonesCollected: number;
    treesHeld: number;
    partitions: readonly PartitionSyncView[];
  };
  readonly now: () => number;
}

/** Anti-entropy (Merkle exchanges) and tombstone collection, read at scrape time. */
export function registerAntiEntropyMetrics(registry: Registry, src: AntiEntropySources): void {
  scrapedCounter(
    registry,
    'tessera_anti_entropy_exchanges_total',
    'Merkle exchanges this node started, by outcome.',
    ['outcome'],
    (set) => {
      for (const [outcome, n] of Object.entries(src.stats().exchanges)) set({ outcome }, n);
    },
  );
  scrapedCounter(
    registry,
    'tessera_anti_entropy_keys_total',
    'Keys repaired by anti-entropy: pulled from a peer or pushed to it.',
    ['direction'],
    (set) => {
      const s = src.stats();
      set({ direction: 'pulled' }, s.keysPulled);
      set({ direction: 'pushed' }, s.keysPushed);
    },
  );
  scrapedCounter(
    registry,
    'tessera_anti_entropy_bytes_total',
    'State bytes moved by anti-entropy, sent or received.',
    ['direction'],
    (set) => {
      const s = src.stats();
      set({ direction: 'sent' }, s.bytesSent);
      set({ direction: 'received' }, s.bytesReceived);
    },
  );
  scrapedCounter(
    registry,
    'tessera_tombstones_collected_total',
    'Tombstones removed for good once every replica had them and the grace period passed.',
    [],
    (set) => set({}, src.stats().tombstonesCollected),
  );
  scrapedGauge(
    registry,
    'tessera_merkle_trees_held',
    'Partition Merkle trees held in memory (8,456 bytes each).',
    [],
    (g) => g.set(src.stats().treesHeld),
  );
  scrapedGauge(
    registry,
    'tessera_anti_entropy_oldest_sync_age_seconds',
    'Over the partitions this node replicates: the longest time since one last ended an exchange in sync with another replica (or, alone, was last visited); counted from start for one never synced.',
    [],
    (g) => {
      const now = src.now();
      let oldest = now;
      for (const p of src.stats().partitions) oldest = Math.min(oldest, lastSyncMs(p) ?? START_MS);
      g.set(Math.max(0, (now - oldest) / 1000));
    },
  );
}

function lastSyncMs(p: PartitionSyncView): number | undefined {
  if (p.lastOutcome === 'solo') return p.lastExchangeMs;
  const times = Object.values(p.inSyncMs);
  return times.length === 0 ? undefined : Math.max(...times);
}

const START_MS = Date.now();

/** Storage on disk, read at scrape time: a listing of the data dir (no scan of the keys). */
export function registerStorageMetrics(registry: Registry, dataDir: string | undefined): void {
  scrapedGauge(
    registry,
    'tessera_storage_disk_bytes',
    'Bytes of the files in the data directory (the LevelDB data, hints and metadata); 0 with storage memory.',
    [],
    async (g) => g.set(dataDir === undefined ? 0 : await directoryBytes(dataDir)),
  );
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(path);
    else if (e.isFile())
      total += await stat(path).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

export interface MembershipSources {
  readonly joinsAbandoned: () => number;
  /** Transfers of the pending ring change as this node sees them (its own inbound ones live). */
  readonly transfers: () => readonly { partition: number; to: string; progress: number }[];
  readonly self: string;
  /** Keys and partitions this node received by transfer since start. */
  readonly received: () => { keys: number; partitions: number };
}

/** Ring changes and the partition transfers that carry them out. */
export function registerMembershipMetrics(registry: Registry, src: MembershipSources): void {
  scrapedCounter(
    registry,
    'tessera_joins_abandoned_total',
    'Joining nodes this node, as claimant, dropped from a ring change because they never confirmed and were down.',
    [],
    (set) => set({}, src.joinsAbandoned()),
  );
  scrapedGauge(
    registry,
    'tessera_transfers_pending',
    'Partition transfers of the pending ring change not finished yet, cluster-wide as this node sees them.',
    [],
    (g) => g.set(src.transfers().filter((t) => t.progress < 1).length),
  );
  scrapedGauge(
    registry,
    'tessera_transfer_progress_ratio',
    'Progress (0 to 1) of each partition this node is pulling for the pending ring change.',
    ['partition'],
    (g) => {
      for (const t of src.transfers())
        if (t.to === src.self) g.set({ partition: String(t.partition) }, t.progress);
    },
  );
  scrapedCounter(
    registry,
    'tessera_transfer_keys_received_total',
    'Keys this node pulled by partition transfer since start.',
    [],
    (set) => set({}, src.received().keys),
  );
  scrapedCounter(
    registry,
    'tessera_transfer_partitions_received_total',
    'Partitions this node finished pulling by transfer since start.',
    [],
    (set) => set({}, src.received().partitions),
  );
}

/** The recovery sweep of strong keys (strong/sweeper.ts). */
export function registerStrongMetrics(
  registry: Registry,
  sweep: () => Readonly<Record<string, number>>,
): void {
  scrapedCounter(
    registry,
    'tessera_strong_sweep_total',
    'Stalled transactions handled by the recovery sweep, by outcome: settled intents, cancelled records, forgotten records, failures.',
    ['outcome'],
    (set) => {
      for (const [outcome, total] of Object.entries(sweep())) set({ outcome }, total);
    },
  );
}
