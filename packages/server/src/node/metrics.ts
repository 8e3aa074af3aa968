/** Prometheus metrics for one node (prom-client), served on GET /metrics. */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
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

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tessera_process_' });
  }
}

export interface BackgroundSources {
  readonly hints: () => Map<string, { count: number; bytes: number }>;
  readonly handoff: () => { expired: number; delivered: number; failed: number; deferred: number };
  readonly antiEntropy: () => {
    exchanges: Record<string, number>;
    keysPulled: number;
    keysPushed: number;
    bytesSent: number;
    bytesReceived: number;
    tombstonesCollected: number;
  };
  readonly admission: () => {
    ratePerSec: number;
    ran: Record<string, number>;
    deferred: Record<string, number>;
  };
}

type GaugeRead = (g: Gauge<string>) => void;

/** A gauge whose value is read from its source at every scrape. */
function scrapedGauge(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: GaugeRead,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      read(this);
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

/** Gauges read at scrape time from the background components (hints, handoff, admission). */
export function registerBackgroundMetrics(registry: Registry, src: BackgroundSources): void {
  const gauge = (name: string, help: string, labelNames: string[], read: GaugeRead): void =>
    scrapedGauge(registry, name, help, labelNames, read);
  gauge('tessera_hints_held', 'Hints held for a down replica, by target node.', ['target'], (g) => {
    for (const [target, h] of src.hints()) g.set({ target }, h.count);
  });
  gauge('tessera_hint_bytes', 'Bytes of hints held, by target node.', ['target'], (g) => {
    for (const [target, h] of src.hints()) g.set({ target }, h.bytes);
  });
  gauge('tessera_handoff_hints', 'Hints handed off since start, by outcome.', ['outcome'], (g) => {
    const s = src.handoff();
    g.set({ outcome: 'delivered' }, s.delivered);
    g.set({ outcome: 'failed' }, s.failed);
    g.set({ outcome: 'deferred' }, s.deferred);
    g.set({ outcome: 'expired' }, s.expired);
  });
  gauge(
    'tessera_background_work',
    'Background work units since start, by kind and whether it ran or was deferred by admission control.',
    ['kind', 'admitted'],
    (g) => {
      const s = src.admission();
      for (const [kind, n] of Object.entries(s.ran)) g.set({ kind, admitted: 'ran' }, n);
      for (const [kind, n] of Object.entries(s.deferred)) g.set({ kind, admitted: 'deferred' }, n);
    },
  );
  gauge(
    'tessera_background_rate_per_second',
    'Background work units admitted per second right now (paper 6.5).',
    [],
    (g) => {
      g.set(src.admission().ratePerSec);
    },
  );
}

/** A counter whose total is read from its source at every scrape (a count kept by a component). */
function scrapedCounter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  read: (set: (labels: Record<string, string>, total: number) => void) => void,
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

/** Joining nodes dropped by this node as claimant because they never confirmed (claimant.ts). */
export function registerMembershipMetrics(registry: Registry, joinsAbandoned: () => number): void {
  scrapedCounter(
    registry,
    'tessera_joins_abandoned_total',
    'Joining nodes this node, as claimant, dropped from a ring change because they never confirmed and were down.',
    [],
    (set) => set({}, joinsAbandoned()),
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
