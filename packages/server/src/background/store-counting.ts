/**
 * Counts what a node stores soon after it starts, for `/v1/status` (keys, tombstones and bytes per
 * node, without a scan per call): every partition's Merkle tree is built once, one partition at a
 * time through the admission gate, and a tree counts its partition while it is built and keeps the
 * count up to date after (storage/partition-trees.ts). Anti-entropy builds the trees of the
 * partitions this node replicates anyway; this only does it sooner, and for every partition.
 */
import type { Logger } from '../logger.js';
import type { ReplicaStore } from '../storage/replica-store.js';
import type { BackgroundGate } from './admission.js';

export interface StoreCountingOptions {
  readonly store: Pick<ReplicaStore, 'merkleTree' | 'partitionCount'>;
  readonly gate: BackgroundGate;
  /** Wait between two tries when the gate refuses. */
  readonly retryMs: number;
  readonly log: Logger;
}

export class StoreCounting {
  private stopped = false;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: StoreCountingOptions) {}

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async run(): Promise<void> {
    const { store, gate, log } = this.options;
    for (let p = 0; p < store.partitionCount && !this.stopped; p++) {
      while (!gate.tryAcquire(1, 'anti-entropy')) {
        await this.pause();
        if (this.stopped) return;
      }
      try {
        await store.merkleTree(p);
      } catch (err) {
        log.warn({ err, partition: p }, 'counting a partition failed; anti-entropy counts it later');
      }
    }
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.options.retryMs);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
