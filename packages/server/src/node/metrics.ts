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
  readonly peersDown = new Gauge({
    name: 'tessera_peers_down',
    help: 'Peers this node currently believes are down.',
    registers: [this.registry],
  });
  readonly ringVersion = new Gauge({
    name: 'tessera_ring_version',
    help: 'Version of the ring this node holds.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tessera_process_' });
  }
}
