/**
 * The simulated cluster of the strong-key model test: 4–5 SimNodes, each with its own view of the
 * cluster state, spread by gossip (every tick a node merges a reachable peer's view with core
 * mergeClusterStates, so views lag and partitions delay them), the background timers, the faults
 * of the plan (kills, wipes, clock steps, partitions) and one ring change as the server makes it:
 * the claimant (lowest id up) proposes the join as a pending change; every node that gains a
 * partition adopts it from the current primaries (the real adoptPartition, retried until it
 * succeeds) and then marks itself done in the pending change; once all receivers are done the
 * claimant commits the next ring, and gossip brings it to the other views.
 */
import {
  type ClusterState,
  claim,
  createRing,
  livePending,
  mergeClusterStates,
  type NodeId,
  planTransfers,
  replicasOf,
  ringMembers,
} from '@tessera/core';
import { adoptPartition } from '../../src/strong/adoption.js';
import { type Hooks, N, type NodeEnv, type NodeParts, PARTITIONS, SimNode, TIMING } from './node.js';
import type { Fault, Plan } from './plan.js';
import { Network, Scheduler } from './sim.js';

export class Cluster {
  readonly sim: Scheduler;
  readonly net: Network;
  readonly nodes: SimNode[];
  readonly joiner: NodeId;
  /** What happened, for a failure report. */
  readonly events: string[] = [];
  /** Ids of the transactions begun without a token. */
  readonly txnIds = new Set<string>();
  private joinRequested = false;
  /** Faults aimed at the ring change, set off when the joining node first confirms its partitions. */
  private anchored: Fault[] = [];
  private ticking = true;

  constructor(
    plan: Plan,
    random: () => number,
    private readonly hooks: Hooks,
  ) {
    this.sim = new Scheduler(random);
    const ids = Array.from({ length: plan.owners + 1 }, (_, i) => `n${i + 1}`);
    this.joiner = ids.at(-1)!;
    let ring = createRing(PARTITIONS, ids[0]!);
    for (const id of ids.slice(1, -1)) ring = claim(ring, id, N);
    const state: ClusterState = {
      clusterId: 'strong-model',
      ring,
      members: ids.map((nodeId) => ({
        nodeId,
        http: `${nodeId}:1`,
        peer: `${nodeId}:2`,
        status: 'member',
        incarnation: 1,
      })),
    };
    const env: NodeEnv = { sim: this.sim, hooks, txnIds: this.txnIds };
    this.nodes = ids.map((id) => new SimNode(id, state, env));
    this.net = new Network(this.sim, new Map(this.nodes.map((n) => [n.id, n])));
    env.net = this.net;
  }

  node(index: number): SimNode {
    return this.nodes[index % this.nodes.length]!;
  }

  async start(plan: Plan): Promise<void> {
    for (const node of this.nodes) await node.start(false);
    Object.assign(this.net.settings, plan.net);
    for (const f of plan.faults) if (!f.anchored) this.sim.at(f.atMs, () => this.fault(f));
    this.anchored = plan.faults.filter((f) => f.anchored);
    if (plan.joinAtMs !== null)
      this.sim.at(plan.joinAtMs, () => {
        this.joinRequested = true;
        return false;
      });
    for (const node of this.nodes) this.tick(node);
  }

  private note(what: string): void {
    this.events.push(`${this.sim.now % 100_000}: ${what}`);
  }

  private tick(node: SimNode): void {
    this.sim.at(this.sim.between(100, 300), () => {
      if (!this.ticking) return false;
      if (node.up) {
        this.gossip(node);
        this.claimant(node);
        void node.background((parts) => this.receive(node, parts));
      }
      this.tick(node);
      return undefined;
    });
  }

  private fault(f: Fault): boolean | undefined {
    const node = f.anchored ? this.nodes.find((n) => n.id === this.joiner)! : this.node(f.node);
    switch (f.kind) {
      case 'kill':
        if (!node.up) return false;
        this.note(`kill ${node.id} for ${f.durationMs} ms`);
        node.kill();
        this.restartLater(node, f.durationMs, false);
        return undefined;
      case 'wipe':
        // One amnesiac at a time: two wiped among a key's three replicas would be data loss.
        if (this.nodes.some((n) => n.recovering)) return false;
        // A new disk is quick to mount: a wiped node is back sooner than a crashed one.
        this.note(`wipe ${node.id} for ${f.durationMs >> 2} ms`);
        node.wipe();
        this.restartLater(node, f.durationMs >> 2, true);
        return undefined;
      case 'clock':
        this.note(`clock of ${node.id} steps ${f.stepMs} ms`);
        node.clockOffsetMs += f.stepMs;
        return false;
      case 'partition': {
        const side = [...new Set([node.id, ...(f.other < 0 ? [] : [this.node(f.other).id])])];
        this.note(`partition [${side.join(',')}] from the rest for ${f.durationMs} ms`);
        this.net.partition(side);
        this.sim.at(f.durationMs, () => {
          this.net.heal();
          return false;
        });
        return false;
      }
    }
  }

  private restartLater(node: SimNode, afterMs: number, wiped: boolean): void {
    const incarnation = node.incarnation;
    this.sim.at(afterMs, () => {
      if (node.up || node.incarnation !== incarnation) return false;
      this.restart(node, wiped);
      return undefined;
    });
  }

  /** A restart keeps the node's view; a wiped node has none and loads a seed's (maybe older). */
  private restart(node: SimNode, wiped: boolean): void {
    if (wiped) node.view = this.nodes[(this.nodes.indexOf(node) + 1) % this.nodes.length]!.view;
    this.note(`restart ${node.id}${wiped ? ' (empty disk)' : ''} at ring ${node.view.ring.version}`);
    void node.start(wiped);
  }

  /** Gossip: the node merges the view of a random peer it can reach. */
  private gossip(node: SimNode): void {
    const peer = this.nodes[this.sim.between(0, this.nodes.length - 1)]!;
    if (peer === node || !peer.up || !this.net.reachable(node.id, peer.id)) return;
    node.view = mergeClusterStates(node.view, peer.view);
  }

  /** The lowest id up among the ring's members proposes the join, and commits it once all are done. */
  private claimant(node: SimNode): void {
    const { view } = node;
    const candidates = ringMembers(view.ring).filter((id) => this.nodes.find((n) => n.id === id)?.up);
    if (candidates[0] !== node.id) return;
    const pending = livePending(view.pending, view.ring);
    if (pending === undefined) {
      if (!this.joinRequested || ringMembers(view.ring).includes(this.joiner)) return;
      const next = claim(view.ring, this.joiner, N);
      this.note(`${node.id} proposes ring ${next.version}: ${this.joiner} joins`);
      node.view = { ...view, pending: { next, kind: 'join', nodeId: this.joiner, done: [] } };
      return;
    }
    const receivers = planTransfers(view.ring, pending.next, N).transfers.map((t) => t.to);
    if (!receivers.every((r) => pending.done.includes(r))) return;
    this.note(`${node.id} commits ring ${pending.next.version}`);
    node.view = { clusterId: view.clusterId, ring: pending.next, members: view.members };
  }

  /** The transfer receiver's strong part: adopt every gained partition, then confirm done. */
  private async receive(node: SimNode, parts: NodeParts): Promise<void> {
    const { view } = node;
    const pending = livePending(view.pending, view.ring);
    if (pending === undefined || pending.done.includes(node.id)) return;
    const adopt = this.hooks.adopt ?? adoptPartition;
    const deps = { self: node.id, records: parts.records, send: parts.send, timeoutMs: TIMING.pullTimeoutMs };
    for (const t of planTransfers(view.ring, pending.next, N).transfers) {
      if (t.to !== node.id || parts.adopted.has(t.partition)) continue;
      const replicas = replicasOf(view.ring, t.partition, N);
      if (!(await adopt(deps, t.partition, pending.next.version, replicas))) return;
      parts.adopted.add(t.partition);
    }
    const done = [...new Set([...pending.done, node.id])].sort();
    node.view = mergeClusterStates(node.view, { ...view, pending: { ...pending, done } });
    if (node.id !== this.joiner) return;
    for (const f of this.anchored) this.sim.at(f.atMs % 600, () => this.fault(f));
    this.anchored = [];
  }

  /** Heals every fault: nodes up, network whole and reliable, clocks right. */
  heal(): void {
    this.note('heal');
    this.net.heal();
    Object.assign(this.net.settings, { dropRate: 0, dupRate: 0, slowRate: 0 });
    for (const node of this.nodes) {
      node.clockOffsetMs = 0;
      if (!node.up) {
        const wiped = node.wipedDown;
        this.sim.at(0, () => {
          if (node.up) return false;
          this.restart(node, wiped);
          return undefined;
        });
      }
    }
  }

  /** Every node up and voting, every view on one ring with no change pending, the join (if any) done. */
  settled(): boolean {
    const version = this.nodes[0]!.view.ring.version;
    return this.nodes.every(
      (n) =>
        n.up &&
        !n.recovering &&
        n.view.ring.version === version &&
        livePending(n.view.pending, n.view.ring) === undefined &&
        (!this.joinRequested || ringMembers(n.view.ring).includes(this.joiner)),
    );
  }

  stop(): void {
    this.ticking = false;
  }
}
