/**
 * What an operator sees and triggers beyond the lifecycle: the drain (drain.ts), repair on demand
 * (anti-entropy/repair-now.ts), the count of what the node stores (background/store-counting.ts),
 * and the figures they add to `/v1/status`. Built with the HTTP front, closed with it.
 */
import type { RepairDeps } from '../anti-entropy/repair-now.js';
import { StoreCounting } from '../background/store-counting.js';
import type { KeyFilterStats } from '../storage/key-filter.js';
import type { StateCacheStats } from '../storage/state-cache.js';
import { Drain } from './drain.js';
import type { RunningNode } from './node.js';

export interface NodeOps {
  readonly drain: Drain;
  readonly repair: Omit<RepairDeps, 'sleep'>;
  /** What `/v1/status` adds: keys and bytes stored, hints held, the drain. */
  status(): OpsStatus;
  close(): Promise<void>;
}

export type OpsStatus = ReturnType<typeof opsStatus>;

/** Between two rounds of a drain handing its hints over. */
const DRAIN_ROUND_MS = 200;
/** Between two tries of counting a partition when the admission gate refuses. */
const COUNTING_RETRY_MS = 250;

export function nodeOps(node: RunningNode, exit: () => void): NodeOps {
  const { config } = node;
  const drain = new Drain({
    self: config.nodeId,
    hints: node.hints,
    handoff: node.handoff,
    peers: node.peers,
    ring: () => node.view.require().ring,
    intervalMs: DRAIN_ROUND_MS,
    peerTimeoutMs: config.peerTimeoutMs,
    batchMax: config.handoffBatchMax,
    now: node.now,
    log: node.log.child({ component: 'drain' }),
    exit,
  });
  const counting = new StoreCounting({
    store: node.store,
    gate: node.admission,
    retryMs: COUNTING_RETRY_MS,
    log: node.log.child({ component: 'store-counting' }),
  });
  counting.start();
  return {
    drain,
    repair: {
      self: config.nodeId,
      n: config.n,
      ring: () => node.view.require().ring,
      antiEntropy: node.antiEntropy,
      now: node.now,
    },
    status: () => opsStatus(node, drain),
    close: async () => {
      drain.stop();
      await counting.stop();
    },
  };
}

function keyFilterView(s: KeyFilterStats) {
  return {
    answering: s.ready && !s.saturated,
    saturated: s.saturated,
    keys: s.keys,
    bytes: s.bytes,
    bytesMax: s.bytesMax,
    readsSkipped: s.readsSkipped,
  };
}

function stateCacheView(s: StateCacheStats) {
  const reads = s.hits + s.misses;
  const hitRatio = reads === 0 ? null : Math.round((s.hits / reads) * 1000) / 1000;
  return {
    hitRatio,
    hits: s.hits,
    misses: s.misses,
    evictions: s.evictions,
    entries: s.entries,
    bytes: s.bytes,
    bytesMax: s.bytesMax,
  };
}

function opsStatus(node: Pick<RunningNode, 'store' | 'hints'>, drain: Pick<Drain, 'view'>) {
  const { keys, tombstones, bytes, partitionsCounted } = node.store.stored();
  return {
    /**
     * What this node stores (keys and tombstones, and their bytes before the engine's overhead),
     * over the partitions counted so far: all of them (`partitionCount`) soon after a start.
     */
    stored: { keys, tombstones, bytes, partitionsCounted, partitionCount: node.store.partitionCount },
    /** The cache of recent states (storage/state-cache.ts), with the share of reads it answered. */
    stateCache: stateCacheView(node.store.cacheStats()),
    keyFilter: keyFilterView(node.store.keyFilterStats()),
    /** Hints this node holds for other nodes. */
    hintsHeld: node.hints.totals(),
    drain: drain.view(),
  };
}
