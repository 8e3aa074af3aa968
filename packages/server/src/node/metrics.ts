/**
 * Prometheus metrics for one node (prom-client), served on GET /metrics. Names follow Prometheus's
 * conventions: counters end in `_total`, units are in the name (`_seconds`, `_bytes`), and a count
 * a component keeps since the node started is exported as a counter read at scrape time. The
 * families are listed in docs/operations.md ("Metrics"); deploy/ holds a dashboard and alert rules
 * that use them (checked against a running node by test/metrics-deploy.test.ts).
 */
import { readFileSync } from 'node:fs';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { memoized } from '../util/memoized.js';
import { BucketHistogram, type HistogramRecorder } from './metrics-histogram.js';
import { registerEventLoopDelay } from './metrics-loop.js';

/** Buckets of request latencies, in seconds. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** How often prom-client's own event-loop lag timer (`tessera_nodejs_eventloop_lag_*`) samples. */
const DEFAULT_LAG_SAMPLE_EVERY_MS = 1_000;

export class NodeMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'tessera_requests_total',
    help: 'Client requests by operation and outcome (ok or an error code).',
    labelNames: ['op', 'outcome'] as const,
    registers: [this.registry],
  });
  /** Recorded through `child` (metrics-histogram.ts: a prom-client observe hashes its labels). */
  readonly latency = new BucketHistogram({
    name: 'tessera_request_duration_seconds',
    help: 'Client request latency by operation.',
    labelNames: ['op'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  /** Live siblings per successful get. */
  readonly siblings: HistogramRecorder = new BucketHistogram({
    name: 'tessera_get_siblings',
    help: 'Live siblings returned per successful get.',
    buckets: [1, 2, 3, 4, 8, 16, 64],
    registers: [this.registry],
  }).child({});
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
  readonly peerLatency = new BucketHistogram({
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
    // Default metrics already carry `process_` or `nodejs_` in their names. Their event-loop lag
    // timer samples once a second, not every 10 ms: tessera_event_loop_delay_seconds is the
    // delay's distribution, and each timer wakes an idle process (metrics-loop.ts).
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'tessera_',
      eventLoopMonitoringPrecision: DEFAULT_LAG_SAMPLE_EVERY_MS,
    });
    registerBuildInfo(this.registry);
    registerEventLoopDelay(this.registry);
  }

  /** A call to a peer (a PeerCallObserver of cluster/peers.ts). */
  observe(method: string, seconds: number, errorCode: string | undefined): void {
    this.peerTimer(method).observe(seconds);
    if (errorCode !== undefined) this.peerErrors.inc({ method, code: errorCode });
  }

  /** Each method's series of peerLatency, looked up once. */
  private readonly peerTimer = memoized((method: string) => this.peerLatency.child({ method }));
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

export * from './metrics-cluster.js';
export * from './metrics-repair.js';
