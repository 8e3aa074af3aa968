/**
 * Gossip (paper 4.8.1): every interval this node exchanges its view of members and ring with one
 * random peer, push and pull, so every change reaches every node within a few rounds. A peer
 * that fails is marked down locally and still picked now and then, which is how it is retried.
 */
import type { ClusterState } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { ClusterView } from './cluster-view.js';
import type { PeerDirectory } from './peers.js';

export interface GossipDeps {
  readonly view: ClusterView;
  readonly peers: PeerDirectory;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly random: () => number;
  readonly log: Logger;
}

export class Gossip {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  rounds = 0;
  failures = 0;

  constructor(private readonly deps: GossipDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.round(), this.deps.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One exchange with a random peer; overlapping rounds are skipped. */
  async round(): Promise<void> {
    const state = this.deps.view.state;
    const ids = this.deps.peers.ids();
    if (this.running || state === undefined || ids.length === 0) return;
    const target = ids[Math.floor(this.deps.random() * ids.length)]!;
    this.running = true;
    try {
      await this.exchange(target, state);
    } finally {
      this.running = false;
    }
  }

  private async exchange(target: string, state: ClusterState): Promise<void> {
    const client = this.deps.peers.client(target);
    if (client === undefined) return;
    try {
      const theirs = await client.gossip(state, this.deps.timeoutMs);
      this.deps.peers.markAlive(target);
      this.rounds++;
      if (await this.deps.view.merge(theirs))
        this.deps.log.info(
          { peer: target, ringVersion: this.deps.view.state?.ring.version },
          'cluster view updated by gossip',
        );
    } catch (err) {
      this.failures++;
      this.deps.peers.markFailed(target, err);
    }
  }
}
