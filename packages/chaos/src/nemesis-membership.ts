/**
 * A membership change made while a partition is up: a leave of a member or a join of a spare,
 * alternating (a leave first, so every run with this fault sees a node leave during a partition).
 * Skipped while an earlier change is still pending, or its leaver still holds data to hand over.
 */
import { pick } from '@tessera/core';
import type { ChaosCluster } from './cluster.js';
import { partition } from './nemesis-links.js';
import type { FaultDeps, Started } from './nemesis-types.js';

export class MembershipFaults {
  readonly members: Set<string>;
  /** Nodes outside the ring, each running alone on an empty data dir, ready to join. */
  private readonly spares: string[];
  /** A node that was told to leave; once its leave commits it is wiped and becomes a spare. */
  private leaver: string | undefined;
  private lastChange: 'join' | 'leave' | undefined;

  constructor(
    private readonly cluster: ChaosCluster,
    /** Fewest members the ring keeps: a leave happens only above it. */
    private readonly membersMin: number,
  ) {
    this.members = new Set(cluster.initialMembers);
    this.spares = cluster.ids.filter((id) => !this.members.has(id));
  }

  /** The change, or undefined when it has to wait (try again after another fault). */
  async change(deps: FaultDeps): Promise<Started | undefined> {
    const { cluster } = this;
    const observer = [...this.members].find((id) => cluster.running(id));
    if (observer === undefined) return undefined;
    const status = await cluster.status(observer).catch(() => undefined);
    if (status === undefined || status.pending !== null) return undefined;
    if (!(await this.retireLeaver(status.members))) return undefined;
    const split = await partition(cluster, deps.random, [...this.members], true);
    try {
      return await this.leaveOrJoin(deps, split);
    } catch (err) {
      await split.end();
      throw err;
    }
  }

  /** As an operator would: stop the last leaver once it has handed over everything it still held. */
  private async retireLeaver(members: readonly { nodeId: string; status: string }[]): Promise<boolean> {
    if (this.leaver === undefined) return true;
    const gone = !members.some((m) => m.nodeId === this.leaver && m.status !== 'removed');
    if (!gone) return false;
    const leaver = await this.cluster.status(this.leaver).catch(() => undefined);
    if (leaver !== undefined && leaver.retiring !== 0) return false;
    await this.cluster.wipe(this.leaver);
    this.spares.push(this.leaver);
    this.leaver = undefined;
    return true;
  }

  private async leaveOrJoin(deps: FaultDeps, split: Started): Promise<Started | undefined> {
    const { cluster } = this;
    const live = [...this.members].filter((id) => cluster.running(id));
    const candidates = live.filter((id) => id !== 'n0');
    const canLeave = this.members.size > this.membersMin && candidates.length > 0;
    if (canLeave && (this.lastChange !== 'leave' || this.spares.length === 0)) {
      const node = pick(deps.random, candidates);
      await cluster.leave(node);
      this.members.delete(node);
      this.leaver = node;
      this.lastChange = 'leave';
      return { detail: `leave ${node} during ${split.detail}`, end: split.end };
    }
    const node = this.spares.shift();
    if (node === undefined) {
      await split.end();
      return undefined;
    }
    await cluster.join(node, pick(deps.random, live));
    this.members.add(node);
    this.lastChange = 'join';
    return { detail: `join ${node} during ${split.detail}`, end: split.end };
  }
}
