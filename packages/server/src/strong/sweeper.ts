/**
 * Recovery of stalled transactions: a periodic sweep of this node's acceptor records that finds
 * intents and pending transaction records past their expiry and settles them from the record
 * (intents.ts), so that no transaction stays pending and no key stays held once its coordinator
 * died. Each key is swept by its first primary, a bounded page per tick; its other primaries sweep
 * it too once it has been stalled for `backupAfterMs` more, since the first primary may not hold
 * the register at all (it was cut off when a majority without it accepted it).
 */
import { decodeTxnRecord, FirstSeen, type NodeId, type Register, TXN_RECORD_PREFIX } from '@tessera/core';
import type { Logger } from '../logger.js';
import { cancelIfPending, type IntentDeps, readTxnRecord, resolveIntent, settleIntent } from './intents.js';
import type { AcceptorRecords } from './records.js';

/** Finished records whose age this process tracks, at most (past it, the oldest wait again: kept longer). */
const FINISHED_TRACKED_MAX = 1_000_000;

export interface SweeperDeps extends IntentDeps {
  /** A monotonic clock in ms (steps of the wall clock do not move it): how long records were kept. */
  readonly elapsedMs: () => number;
  /** The primaries of `key` under the current ring, the first one first. */
  readonly primaries: (key: string) => readonly NodeId[];
  /** How long after its expiry a stalled key is swept by its other primaries too. */
  readonly backupAfterMs: number;
  readonly self: NodeId;
  readonly records: AcceptorRecords;
  readonly timeoutMs: number;
  readonly log: Logger;
}

/** Records looked at per tick. */
const SWEEP_PAGE_KEYS = 512;
/**
 * A finished transaction's record is kept this long, so that a request repeated with its
 * clientRequestToken answers the first outcome (DynamoDB keeps tokens 10 minutes); then its keys
 * are settled once more and it is forgotten.
 */
export const TXN_RECORD_KEEP_MS = 10 * 60_000;

export interface SweepStats {
  settled: number;
  cancelled: number;
  /** Finished transactions' records dropped after TXN_RECORD_KEEP_MS. */
  forgotten: number;
  failed: number;
}

export class StrongSweeper {
  private cursor: string | undefined;
  private running = false;
  /** When this process first saw each finished transaction record. */
  private readonly finishedSeen: FirstSeen;
  readonly stats: SweepStats = { settled: 0, cancelled: 0, forgotten: 0, failed: 0 };

  constructor(private readonly deps: SweeperDeps) {
    this.finishedSeen = new FirstSeen(deps.elapsedMs, FINISHED_TRACKED_MAX);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.sweepPage();
    } catch (err) {
      this.deps.log.warn({ err: String(err) }, 'recovery sweep failed; will retry');
      this.cursor = undefined;
    } finally {
      this.running = false;
    }
  }

  private async sweepPage(): Promise<void> {
    let seen = 0;
    for await (const { stored, key, record } of this.deps.records.scan(this.cursor, SWEEP_PAGE_KEYS)) {
      seen++;
      this.cursor = stored;
      const register = record.accepted?.register;
      if (register === undefined) continue;
      // Old finished records are dropped by every replica that holds one; stalled keys are settled by
      // their first primary, and by their other primaries once stalled for backupAfterMs more.
      const primaries = this.deps.primaries(key);
      const sweep = primaries.includes(this.deps.self) || this.isOldFinished(key, register);
      if (!sweep) continue;
      const graceMs = primaries[0] === this.deps.self ? 0 : this.deps.backupAfterMs;
      await this.sweepKey(key, register, graceMs).catch((err: unknown) => {
        this.stats.failed++;
        this.deps.log.debug({ key, err }, 'could not settle a stalled transaction; will retry');
      });
    }
    if (seen < SWEEP_PAGE_KEYS) this.cursor = undefined;
  }

  /** Settles `key` if it has been stalled for longer than `graceMs` past its expiry. */
  private async sweepKey(key: string, register: Register, graceMs: number): Promise<void> {
    const { expiry } = this.deps;
    const deadlineMs = this.deps.now() + this.deps.timeoutMs;
    const { intent } = register;
    if (intent !== undefined && expiry.expired(intent.txn, intent.expiresAtMs, graceMs)) {
      const resolved = await resolveIntent(this.deps, key, intent, deadlineMs);
      if (!resolved.pending) this.stats.settled++;
      return;
    }
    if (!key.startsWith(TXN_RECORD_PREFIX)) return;
    const id = key.slice(TXN_RECORD_PREFIX.length);
    const txn = decodeTxnRecord(register.value);
    if (this.isOldFinished(key, register)) return this.forget(key, deadlineMs);
    if (txn === undefined) return;
    if (txn.status !== 'pending') return expiry.finished(id);
    if (!expiry.expired(id, txn.expiresAtMs, graceMs)) return;
    const reasons = txn.keys.map(() => ({
      code: 'TransactionConflict' as const,
      message: 'cancelled by recovery: its coordinator did not finish it before it expired',
    }));
    const ended = await cancelIfPending(this.deps, id, reasons, deadlineMs);
    if (ended?.status === 'cancelled') this.stats.cancelled++;
  }

  /**
   * A finished record kept long enough to be dropped: older than TXN_RECORD_KEEP_MS by its
   * creation time, AND seen finished by this process for that long on its monotonic clock, so that a
   * node whose wall clock runs ahead (or was stepped) cannot drop a record early. A restart starts
   * the wait over, which only keeps records longer.
   */
  private isOldFinished(key: string, register: Register): boolean {
    if (!key.startsWith(TXN_RECORD_PREFIX)) return false;
    const txn = decodeTxnRecord(register.value);
    if (txn === undefined || txn.status === 'pending') return false;
    const keptMs = this.finishedSeen.watchedMs(key);
    return txn.createdAtMs + TXN_RECORD_KEEP_MS < this.deps.now() && keptMs >= TXN_RECORD_KEEP_MS;
  }

  /**
   * Settles the transaction's keys once more (a no-op unless an intent was left), then drops its
   * record. From the record as chosen, read again: this node's own copy is only what it accepted,
   * which a majority may have overruled (a commit that reached this node alone, then a cancel).
   */
  private async forget(key: string, deadlineMs: number): Promise<void> {
    const id = key.slice(TXN_RECORD_PREFIX.length);
    const txn = await readTxnRecord(this.deps, id, deadlineMs);
    if (txn === undefined || txn.status === 'pending') return;
    for (const k of txn.keys) await settleIntent(this.deps, k, id, txn, deadlineMs);
    if ((await this.deps.proposer.tell(key, { kind: 'forget', key })) > 0) this.stats.forgotten++;
    this.finishedSeen.forget(key);
  }
}
