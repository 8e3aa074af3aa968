/** The node HTTP calls the chaos suite makes besides the workloads': status, placement, local copies, admin. */
import { nodeFetch } from './http.js';

const CALL_TIMEOUT_MS = 5_000;

export interface StatusBody {
  readonly nodeId: string;
  readonly ringVersion: number;
  readonly ring: { readonly owners: readonly string[] };
  readonly members: readonly { nodeId: string; status: string; partitions: number; http: string }[];
  readonly pending: unknown;
  /** Partitions this node holds but no longer replicates, not yet handed over; null before it knows. */
  readonly retiring?: number | null;
}

/** Where a key lives: its partition and preference list. */
export interface Placement {
  readonly partition: number;
  readonly nodes: readonly string[];
}

/** A node's own copy of a key: a live value, a tombstone (no value, a context), or nothing. */
export type LocalCopy = 'live' | 'tombstone' | 'nothing';

interface RepairBody {
  readonly antiEntropy: {
    readonly partitions: readonly { partition: number; inSyncMs: Readonly<Record<string, number>> }[];
  };
}

export class NodeApi {
  constructor(
    readonly id: string,
    readonly url: string,
  ) {}

  async status(): Promise<StatusBody> {
    return (await this.call('GET', '/v1/status')) as StatusBody;
  }

  async placement(key: string): Promise<Placement> {
    return (await this.call('GET', `/v1/preference-list/${encodeURIComponent(key)}`)) as Placement;
  }

  /** The node's own stored siblings of `key` ([] when it holds no live value). */
  async localValues(key: string): Promise<unknown[]> {
    const { status, body } = await this.localRead(key);
    if (status === 404) return [];
    return (body as { siblings: { value: unknown }[] }).siblings.map((s) => s.value);
  }

  async localCopy(key: string): Promise<LocalCopy> {
    const { status, body } = await this.localRead(key);
    if (status !== 404) return 'live';
    return typeof (body as { context?: unknown }).context === 'string' ? 'tombstone' : 'nothing';
  }

  /**
   * Per partition it replicates and per other replica: when, in the node's own clock, it last
   * started an anti-entropy exchange with that replica that ended in sync (none since its start: absent).
   */
  async inSync(): Promise<Map<number, Readonly<Record<string, number>>>> {
    const body = (await this.call('GET', '/v1/status/repair')) as RepairBody;
    return new Map(body.antiEntropy.partitions.map((p) => [p.partition, p.inSyncMs]));
  }

  async join(seed: string): Promise<void> {
    await this.call('POST', '/v1/admin/join', { seed });
  }

  async leave(): Promise<void> {
    await this.call('POST', '/v1/admin/leave', {});
  }

  /**
   * Arms the node's fault injection: the next write it coordinates reaches the other replicas,
   * then the node kills itself (SIGKILL) before its own copy is written and the client answered.
   */
  async armCrashMidWrite(): Promise<void> {
    await this.call('POST', '/v1/admin/faults', { blockPeers: [], crashMidWrite: true });
  }

  /**
   * Arms the node's fault injection for transactions: the next transaction it coordinates kills
   * the node (SIGKILL) with its intents placed (`after-intents`) or just after its commit
   * (`after-commit`), before it answers.
   */
  async armCrashMidTransaction(step: 'after-intents' | 'after-commit'): Promise<void> {
    await this.call('POST', '/v1/admin/faults', { blockPeers: [], crashMidTransaction: step });
  }

  /** Disarms it (and unblocks every peer). */
  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/v1/admin/faults');
  }

  private async localRead(key: string): Promise<{ status: number; body: unknown }> {
    const res = await nodeFetch(`${this.url}/v1/kv/${encodeURIComponent(key)}?local=true`, {
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const body: unknown = await res.json().catch(() => ({}));
    if (!res.ok && res.status !== 404)
      throw new Error(`${this.id} answered ${res.status} to a local read of ${key}`);
    return { status: res.status, body };
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await nodeFetch(`${this.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const parsed: unknown = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(`${method} ${path} on ${this.id}: ${res.status} ${JSON.stringify(parsed)}`);
    return parsed;
  }
}
