/**
 * The Tessera nodes the store knows, each with its own client pinned to that node (routing off),
 * so that a browser tab can choose which node its requests go through: during a split, a tab on
 * each side is what makes the versions diverge.
 */
import { TesseraClient } from '@tessera/client';

/** A node process the store started and may stop and restart (LocalNode fits). */
export interface ManagedProcess {
  readonly running: boolean;
  readonly pid: number | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface NodeSpec {
  readonly id: string;
  /** Base URL of the node's HTTP API. */
  readonly url: string;
  readonly process?: ManagedProcess;
}

export interface NodeEntry extends NodeSpec {
  readonly client: TesseraClient;
  /**
   * For the strong keys (stock, orders): the same node, waited for longer than its own deadline,
   * so that a node cut off from a majority answers STRONG_UNAVAILABLE before the store gives up.
   */
  readonly strong: TesseraClient;
}

/** A node that failed a call is tried after the others for this long. */
const FAILED_FOR_MS = 3_000;
/** One HTTP attempt; a node's own deadline is 2 s. */
const CALL_TIMEOUT_MS = 4_000;
/**
 * One HTTP attempt of a strong call: longer than a node's own deadline for a transaction or a
 * snapshot read (5 s by default), so that a node cut off from a majority answers
 * STRONG_UNAVAILABLE, which says so, rather than look like a node that does not answer.
 */
const STRONG_CALL_TIMEOUT_MS = 7_000;

export class NodeDirectory {
  private readonly entries: readonly NodeEntry[];
  private readonly failedAt = new Map<string, number>();

  constructor(specs: readonly NodeSpec[]) {
    if (specs.length === 0) throw new Error('The store needs at least one Tessera node.');
    const ids = new Set(specs.map((s) => s.id));
    if (ids.size !== specs.length) throw new Error('Tessera node ids must be unique.');
    const pinned = (url: string, timeoutMs: number): TesseraClient =>
      new TesseraClient({ nodes: [url], routing: false, retries: 0, timeoutMs });
    this.entries = specs.map((spec) => ({
      ...spec,
      client: pinned(spec.url, CALL_TIMEOUT_MS),
      strong: pinned(spec.url, STRONG_CALL_TIMEOUT_MS),
    }));
  }

  list(): readonly NodeEntry[] {
    return this.entries;
  }

  ids(): string[] {
    return this.entries.map((e) => e.id);
  }

  get(id: string): NodeEntry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  /** The nodes to try for a tab that asked for `asked` ("auto" or a node id), best first. */
  candidates(asked: string): NodeEntry[] {
    const now = Date.now();
    const healthy = (e: NodeEntry): boolean => (this.failedAt.get(e.id) ?? 0) + FAILED_FOR_MS <= now;
    const pinned = this.entries.filter((e) => e.id === asked);
    const rest = this.entries.filter((e) => e.id !== asked);
    return [...pinned, ...rest.filter(healthy), ...rest.filter((e) => !healthy(e))];
  }

  markFailed(id: string): void {
    this.failedAt.set(id, Date.now());
  }

  markOk(id: string): void {
    this.failedAt.delete(id);
  }

  async close(): Promise<void> {
    await Promise.all(this.entries.flatMap((e) => [e.client.close(), e.strong.close()]));
  }
}
