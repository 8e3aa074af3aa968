/** Scraped metric families of the cluster view, the background work, membership and strong keys. */
import type { Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge } from './metrics-scrape.js';

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
