/**
 * Gossip (paper 4.8.1): every interval this node exchanges its view of members and ring with one
 * random peer, push and pull, so every change reaches every node within a few rounds. A peer
 * that fails is marked down locally and still picked now and then, which is how it is retried.
 */
import type { ClusterState } from '@tessera/core';
import type { Logger } from '../logger.js';
import type { PeerClient } from '../transport/peer-api.js';
import type { ClusterView } from './cluster-view.js';
import type { PeerDirectory } from './peers.js';

export interface GossipDeps {
  readonly view: ClusterView;
  readonly peers: PeerDirectory;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly random: () => number;
  readonly log: Logger;
  /** Seed peer addresses (paper 4.8.2): gossiped with now and then, so no two logical rings form. */
  readonly seeds?: readonly string[];
  readonly seedIntervalMs?: number;
  /** This node's own peer addresses (bound and advertised), never gossiped with as a seed. */
  readonly selfPeers?: readonly string[];
  readonly connect?: (address: string) => PeerClient;
}

export class Gossip {
  private timer: NodeJS.Timeout | undefined;
  private seedTimer: NodeJS.Timeout | undefined;
  private readonly seedClients = new Map<string, PeerClient>();
  private running = false;
  rounds = 0;
  failures = 0;

  constructor(private readonly deps: GossipDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.round(), this.deps.intervalMs);
    this.timer.unref();
    const seeds = (this.deps.seeds ?? []).filter((s) => !(this.deps.selfPeers ?? []).includes(s));
    if (seeds.length > 0 && this.deps.connect !== undefined) {
      this.seedTimer = setInterval(() => void this.seedRound(seeds), this.deps.seedIntervalMs ?? 5_000);
      this.seedTimer.unref();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.seedTimer);
    for (const c of this.seedClients.values()) c.close();
    this.seedClients.clear();
  }

  /** Pushes this node's view to every peer at once: after a local change, so it spreads in one round. */
  spread(): void {
    const state = this.deps.view.state;
    if (state === undefined) return;
    for (const id of this.deps.peers.ids()) void this.exchange(id, state);
  }

  /** One exchange with a random seed, reached by address whether or not it is a known member. */
  private async seedRound(seeds: readonly string[]): Promise<void> {
    const state = this.deps.view.state;
    const connect = this.deps.connect;
    if (state === undefined || connect === undefined) return;
    const address = seeds[Math.floor(this.deps.random() * seeds.length)]!;
    let client = this.seedClients.get(address);
    if (client === undefined) {
      client = connect(address);
      this.seedClients.set(address, client);
    }
    try {
      const theirs = await client.gossip(state, this.deps.timeoutMs);
      if (await this.deps.view.merge(theirs))
        this.deps.log.info(
          { seed: address, ringVersion: this.deps.view.state?.ring.version },
          'cluster view updated by a seed',
        );
    } catch (err) {
      this.deps.log.debug({ seed: address, err }, 'seed gossip failed');
    }
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
