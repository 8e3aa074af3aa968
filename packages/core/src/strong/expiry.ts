/**
 * When a transaction counts as expired for this node (docs/transactions.md, "Recovery"). Its
 * record and intents carry an expiry written on the coordinator's wall clock; a coordinator whose
 * clock runs minutes ahead would otherwise hold its keys for minutes after it died. So a pending
 * transaction is also expired once this node has watched it pending for its timeout on its own
 * monotonic clock. Cancelling early is always safe (the record decides: a cancel and a commit race
 * through one consensus change); only waiting too long is not.
 */

/** When this process first saw each of a bounded set of ids, on a monotonic clock. */
export class FirstSeen {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly elapsedMs: () => number,
    private readonly idsMax: number,
  ) {}

  /** How long `id` has been watched: 0 the first time. Past `idsMax`, the oldest is dropped. */
  watchedMs(id: string): number {
    const now = this.elapsedMs();
    const first = this.seen.get(id);
    if (first !== undefined) return now - first;
    if (this.seen.size >= this.idsMax) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.set(id, now);
    return 0;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }

  get size(): number {
    return this.seen.size;
  }
}

export interface TxnExpiryClocks {
  /** The wall clock in ms (what expiries are written on). */
  readonly now: () => number;
  /** A monotonic clock in ms: steps of the wall clock do not move it. */
  readonly elapsedMs: () => number;
  /** A transaction's timeout (`txnTimeoutMs`): how long a pending one may be watched. */
  readonly timeoutMs: number;
}

/** Pending transactions watched at most; past it the oldest watch starts over (it only waits longer). */
export const WATCHED_TXNS_MAX = 100_000;

export class TxnExpiry {
  private readonly watched: FirstSeen;

  constructor(private readonly clocks: TxnExpiryClocks) {
    this.watched = new FirstSeen(clocks.elapsedMs, WATCHED_TXNS_MAX);
  }

  /**
   * True when pending transaction `txn`, which expires at `expiresAtMs` on its coordinator's clock,
   * has been stalled for longer than `graceMs` past its expiry: by this node's wall clock, or by how
   * long this node has watched it pending.
   */
  expired(txn: string, expiresAtMs: number, graceMs = 0): boolean {
    const watchedMs = this.watched.watchedMs(txn);
    return this.clocks.now() - graceMs > expiresAtMs || watchedMs > this.clocks.timeoutMs + graceMs;
  }

  /** The transaction is over: stop watching it. */
  finished(txn: string): void {
    this.watched.forget(txn);
  }
}
