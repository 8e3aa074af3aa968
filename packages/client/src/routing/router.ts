/**
 * Partition-aware routing (paper 6.4): which nodes to try for a key, in order. The first healthy
 * replica of the key's preference list comes first (it coordinates a write without a forwarding
 * hop, and serves its own copy of a read) — or, for a write, the replica its context names
 * (paper 5) — then the other replicas, then the fallbacks, then any node. The ring is refreshed every `refreshMs` and at once when a node fails; a node that failed
 * is tried last for `nodeDownMs`.
 */
import { type Getter, loadRing, type NodeUrl, preferenceFor, type RingView } from './ring.js';

/**
 * How a node stands to a key: one of its N replicas, a fallback in its preference list, or a node
 * chosen without routing (no ring known yet, or a call that names no key).
 */
export type Role = 'replica' | 'fallback' | 'unrouted';

export interface Route {
  readonly url: string;
  readonly nodeId: string | undefined;
  readonly role: Role;
}

export interface RouterOptions {
  readonly seeds: readonly string[];
  readonly routing: boolean;
  readonly refreshMs: number;
  readonly nodeDownMs: number;
  readonly nodeUrl: NodeUrl;
  readonly get: Getter;
  /** How long the first calls wait for the first ring load before routing without it. */
  readonly firstLoadWaitMs: number;
  readonly now?: () => number;
}

export interface RingStats {
  readonly version: number;
  readonly partitionCount: number;
  readonly n: number;
  readonly source: 'status' | 'probe';
  readonly from: string;
  readonly members: readonly { nodeId: string; url: string }[];
}

/** Failure-triggered refreshes are at least this far apart. */
const REFRESH_GAP_MS = 250;

export class Router {
  private view: RingView | undefined;
  private readonly downUntil = new Map<string, number>();
  private refreshing: Promise<void> | undefined;
  private initial: Promise<void> | undefined;
  private firstWaitOver = false;
  private pendingRefresh: ReturnType<typeof setTimeout> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastRefreshMs = Number.NEGATIVE_INFINITY;
  private rotation = 0;
  private closed = false;
  refreshes = 0;
  refreshFailures = 0;
  lastRefreshError: unknown;

  constructor(private readonly options: RouterOptions) {}

  /**
   * The nodes to try for `key`, best first. The first calls wait for the first ring load, at most
   * `firstLoadWaitMs` (and `maxWaitMs`); if it is not there by then, calls go to any node.
   */
  async routes(
    key: string | undefined,
    maxWaitMs = Number.POSITIVE_INFINITY,
    signal?: AbortSignal,
    prefer?: string,
  ): Promise<Route[]> {
    if (this.options.routing && !this.closed) {
      this.startTimer();
      if (this.view === undefined && !this.firstWaitOver) await this.firstLoad(maxWaitMs, signal);
    }
    return this.order(key, prefer);
  }

  private async firstLoad(maxWaitMs: number, signal: AbortSignal | undefined): Promise<void> {
    this.initial ??= this.refresh();
    const initial = this.initial;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), Math.min(maxWaitMs, this.options.firstLoadWaitMs));
      onAbort = () => resolve('late');
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const outcome = await Promise.race([initial, late]);
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    if (outcome !== 'late' || maxWaitMs >= this.options.firstLoadWaitMs) this.firstWaitOver = true;
  }

  /**
   * The routes from what the client knows right now, without waiting. `prefer` (a node id) goes
   * first when it is a healthy replica of the key: the coordinator a write's context asks for.
   */
  order(key: string | undefined, prefer?: string): Route[] {
    const now = this.now();
    const healthy: Route[] = [];
    const unhealthy: Route[] = [];
    const seen = new Set<string>();
    const push = (route: Route, down: boolean): void => {
      if (seen.has(route.url)) return;
      seen.add(route.url);
      const locallyDown = (this.downUntil.get(route.url) ?? 0) > now;
      (down || locallyDown ? unhealthy : healthy).push(route);
    };
    const view = this.view;
    if (view !== undefined && key !== undefined) {
      const list = preferenceFor(view, key);
      list.forEach((nodeId, i) => {
        const member = view.members.get(nodeId);
        if (member === undefined) return;
        push({ url: member.url, nodeId, role: i < view.n ? 'replica' : 'fallback' }, member.down);
      });
    }
    for (const route of this.anyNode(view)) {
      push(route, route.nodeId !== undefined && view?.members.get(route.nodeId)?.down === true);
    }
    const chosen = healthy.findIndex((r) => r.nodeId === prefer && r.role === 'replica');
    if (chosen > 0) healthy.unshift(...healthy.splice(chosen, 1));
    return [...healthy, ...unhealthy];
  }

  /** Every known node, starting at a rotating offset so key-less traffic spreads. */
  private anyNode(view: RingView | undefined): Route[] {
    const routes: Route[] = [];
    if (view !== undefined) {
      for (const m of view.members.values()) routes.push({ url: m.url, nodeId: m.nodeId, role: 'unrouted' });
    }
    for (const url of this.options.seeds) routes.push({ url, nodeId: undefined, role: 'unrouted' });
    const start = this.rotation++ % Math.max(1, routes.length);
    return [...routes.slice(start), ...routes.slice(0, start)];
  }

  /** The node id of a URL, when the ring names it. */
  nodeIdOf(url: string): string | undefined {
    for (const m of this.view?.members.values() ?? []) if (m.url === url) return m.nodeId;
    return undefined;
  }

  markFailed(url: string, forMs = this.options.nodeDownMs): void {
    this.downUntil.set(url, this.now() + forMs);
    this.refreshSoon();
  }

  /** A refresh now, or as soon as REFRESH_GAP_MS has passed since the last one. */
  private refreshSoon(): void {
    if (!this.options.routing || this.closed || this.pendingRefresh !== undefined) return;
    const waitMs = this.lastRefreshMs + REFRESH_GAP_MS - this.now();
    if (waitMs <= 0) {
      void this.refresh();
      return;
    }
    this.pendingRefresh = setTimeout(() => {
      this.pendingRefresh = undefined;
      void this.refresh();
    }, waitMs);
    unref(this.pendingRefresh);
  }

  markAlive(url: string): void {
    this.downUntil.delete(url);
  }

  /** Nodes this client currently avoids. */
  down(): string[] {
    const now = this.now();
    return [...this.downUntil].filter(([, until]) => until > now).map(([url]) => url);
  }

  ring(): RingStats | undefined {
    const view = this.view;
    if (view === undefined) return undefined;
    return {
      version: view.ring.version,
      partitionCount: view.ring.partitionCount,
      n: view.n,
      source: view.source,
      from: view.from,
      members: [...view.members.values()].map((m) => ({ nodeId: m.nodeId, url: m.url })),
    };
  }

  /** Loads the ring from one reachable node; never throws (routing falls back to any node). */
  refresh(): Promise<void> {
    if (this.refreshing !== undefined) return this.refreshing;
    this.lastRefreshMs = this.now();
    this.refreshing = this.load().finally(() => {
      this.refreshing = undefined;
    });
    this.initial ??= this.refreshing;
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const sources = this.order(undefined).map((r) => r.url);
    for (const from of sources) {
      if (this.closed) return;
      try {
        this.view = await loadRing(this.options.get, from, this.view, this.options.nodeUrl);
        this.refreshes++;
        return;
      } catch (err) {
        this.lastRefreshError = err;
        this.downUntil.set(from, this.now() + this.options.nodeDownMs);
      }
    }
    this.refreshFailures++;
  }

  private startTimer(): void {
    if (this.timer !== undefined || this.options.refreshMs <= 0) return;
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    unref(this.timer);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.pendingRefresh !== undefined) clearTimeout(this.pendingRefresh);
    this.timer = undefined;
    this.pendingRefresh = undefined;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** In Node, the client's timers must not keep the process alive. */
function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}
