/** Counters of what the client sent where: how routing can be observed and tested. */
import type { Role } from '../routing/router.js';
import type { HttpMethod } from '../transport/types.js';

/** One HTTP attempt, as given to the `onRequest` observer. */
export interface RequestEvent {
  readonly method: HttpMethod;
  /** The key, for key-value calls. */
  readonly key: string | undefined;
  /** Base URL of the node tried. */
  readonly node: string;
  readonly nodeId: string | undefined;
  /** How the node stands to the key (replica, fallback in its preference list, or any node). */
  readonly role: Role;
  /** 1 for the first attempt of a call, 2 for its first retry, … */
  readonly attempt: number;
  /** HTTP status, when the node answered. */
  readonly status: number | undefined;
  /** Error code, when the attempt failed. */
  readonly code: string | undefined;
  readonly durationMs: number;
}

export interface RequestCounters {
  /** HTTP attempts made. */
  requests: number;
  /** Attempts that were retries of an earlier failed attempt. */
  retries: number;
  /** Attempts that failed (an error answer or no answer). */
  failures: number;
  /** Attempts by the role of the node they went to. */
  byRole: Record<Role, number>;
  /** Attempts by node (node id when known, else URL). */
  byNode: Record<string, number>;
}

export class RequestStats {
  private readonly counters: RequestCounters = {
    requests: 0,
    retries: 0,
    failures: 0,
    byRole: { replica: 0, fallback: 0, unrouted: 0 },
    byNode: {},
  };

  constructor(private readonly observer?: (event: RequestEvent) => void) {}

  record(event: RequestEvent): void {
    const c = this.counters;
    c.requests++;
    if (event.attempt > 1) c.retries++;
    if (event.code !== undefined) c.failures++;
    c.byRole[event.role]++;
    const node = event.nodeId ?? event.node;
    c.byNode[node] = (c.byNode[node] ?? 0) + 1;
    if (this.observer === undefined) return;
    try {
      this.observer(event);
    } catch {
      // An observer's bug must not fail the call it observes.
    }
  }

  snapshot(): RequestCounters {
    const c = this.counters;
    return { ...c, byRole: { ...c.byRole }, byNode: { ...c.byNode } };
  }
}
