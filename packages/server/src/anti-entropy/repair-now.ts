/**
 * Anti-entropy on demand (`tessera admin repair`, POST /v1/admin/repair): exchanges every partition
 * this node replicates, or one, with each of its other replicas now, instead of waiting for the
 * timer to come round. An exchange the admission gate defers, or that stops at a limit part way
 * (incomplete), is run again until it ends, within a deadline; what was left is reported.
 */
import { type NodeId, type Ring, TesseraError } from '@tessera/core';
import type { AntiEntropy } from './anti-entropy.js';
import { partitionsReplicatedBy, replicasOf } from './replicas-of.js';
import type { ExchangeOutcome } from './types.js';

export interface RepairDeps {
  readonly self: NodeId;
  readonly n: number;
  readonly ring: () => Ring;
  readonly antiEntropy: Pick<AntiEntropy, 'runOnce'>;
  readonly now: () => number;
  /** Waits before an exchange the gate deferred is tried again. */
  readonly sleep: (ms: number) => Promise<void>;
}

export interface RepairReport {
  /** Partitions asked for. */
  readonly partitions: number;
  /** Exchanges run, by how each ended. */
  readonly exchanges: Partial<Record<ExchangeOutcome, number>>;
  /** Keys changed here by merging a replica's copy. */
  readonly keysPulled: number;
  /** Keys sent to a replica whose copy was older. */
  readonly keysPushed: number;
  /** (partition, replica) pairs not in sync when the deadline passed or the replica was unreachable. */
  readonly unfinished: { partition: number; peer: NodeId; outcome: ExchangeOutcome }[];
  readonly elapsedMs: number;
}

/** Exchanges of one pair tried at most this many times (an incomplete one continues where it stopped). */
const ATTEMPTS_MAX = 50;
const DEFERRED_WAIT_MS = 50;

/** The partitions a repair covers: `partition` (checked), or all this node replicates. */
export function repairTargets(deps: Pick<RepairDeps, 'self' | 'n' | 'ring'>, partition?: number): number[] {
  const ring = deps.ring();
  if (partition === undefined) return partitionsReplicatedBy(ring, deps.self, deps.n);
  if (!Number.isInteger(partition) || partition < 0 || partition >= ring.partitionCount) {
    throw new TesseraError(
      'BAD_REQUEST',
      `Partition ${partition} does not exist: this cluster's partitions are 0 to ${ring.partitionCount - 1}.`,
      { partition, partitionCount: ring.partitionCount },
    );
  }
  const replicas = replicasOf(ring, partition, deps.n);
  if (!replicas.includes(deps.self)) {
    throw new TesseraError(
      'BAD_REQUEST',
      `This node does not replicate partition ${partition}; run the repair on one of its replicas: ${replicas.join(', ')}.`,
      { partition, replicas },
    );
  }
  return [partition];
}

export async function repairNow(
  deps: RepairDeps,
  partitions: readonly number[],
  deadlineMs: number,
): Promise<RepairReport> {
  const startedMs = deps.now();
  const exchanges: Partial<Record<ExchangeOutcome, number>> = {};
  const unfinished: RepairReport['unfinished'] = [];
  let keysPulled = 0;
  let keysPushed = 0;
  for (const partition of partitions) {
    const peers = replicasOf(deps.ring(), partition, deps.n).filter((node) => node !== deps.self);
    for (const peer of peers) {
      let outcome: ExchangeOutcome = 'deferred';
      for (let attempt = 0; attempt < ATTEMPTS_MAX && deps.now() < deadlineMs; attempt++) {
        const result = await deps.antiEntropy.runOnce({ partition, peer });
        outcome = result.outcome;
        keysPulled += result.keysPulled;
        keysPushed += result.keysPushed;
        if (outcome !== 'deferred') exchanges[outcome] = (exchanges[outcome] ?? 0) + 1;
        if (outcome === 'deferred') await deps.sleep(DEFERRED_WAIT_MS);
        else if (outcome !== 'incomplete') break;
      }
      if (outcome !== 'in-sync' && outcome !== 'repaired') unfinished.push({ partition, peer, outcome });
    }
  }
  return {
    partitions: partitions.length,
    exchanges,
    keysPulled,
    keysPushed,
    unfinished,
    elapsedMs: deps.now() - startedMs,
  };
}
