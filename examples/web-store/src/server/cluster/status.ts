/**
 * The cluster as the panel shows it: every node's report (probe.ts) made into one picture
 * (picture.ts), stamped with the time the store asked. Many tabs poll it, so one answer is shared
 * for a short while; an action (stop, restart, split, heal) invalidates it.
 */
import type { ClusterView } from '../../shared/api.js';
import type { NodeDirectory } from './directory.js';
import { picture } from './picture.js';
import { probe } from './probe.js';

const CACHE_MS = 400;

export class ClusterStatus {
  private cached: { at: number; view: Promise<ClusterView> } | undefined;

  /** `lastSplitAt`: when the store last split the cluster (ms since the epoch), if it did. */
  constructor(
    private readonly nodes: NodeDirectory,
    private readonly lastSplitAt: () => number | null = () => null,
  ) {}

  view(): Promise<ClusterView> {
    const now = Date.now();
    if (this.cached === undefined || now - this.cached.at > CACHE_MS) {
      this.cached = { at: now, view: this.load() };
    }
    return this.cached.view;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private async load(): Promise<ClusterView> {
    const observedAt = new Date().toISOString();
    const reports = await Promise.all(this.nodes.list().map(probe));
    const { nodes, links, split, health } = picture(reports);
    const lastSplitAt = this.lastSplitAt();
    return {
      observedAt,
      nodes,
      links,
      split,
      health,
      lastSplitAt: lastSplitAt === null ? null : new Date(lastSplitAt).toISOString(),
      canControlProcesses: nodes.some((n) => n.managed),
      faultInjection: nodes.some((n) => n.blocks !== null),
      quorum: reports.find((r) => r.quorum !== null)?.quorum ?? null,
    };
  }
}
