/**
 * Recovery of stalled transactions: a periodic sweep of this node's acceptor records that finds
 * intents and pending transaction records past their expiry and settles them from the record
 * (intents.ts), so that no transaction stays pending and no key stays held once its coordinator
 * died. Each key is swept by its first primary only, a bounded page per tick.
 */
import {
  decodeTxnRecord,
  type NodeId,
  type Register,
  TXN_RECORD_PREFIX,
  type TxnRecord,
} from '@tessera/core';
import type { Logger } from '../logger.js';
import { cancelIfPending, type IntentDeps, resolveIntent, settleIntent } from './intents.js';
import type { AcceptorRecords } from './records.js';

export interface SweeperDeps extends IntentDeps {
  /** The first primary of `key` under the current ring. */
  readonly firstPrimary: (key: string) => NodeId | undefined;
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
  readonly stats: SweepStats = { settled: 0, cancelled: 0, forgotten: 0, failed: 0 };

  constructor(private readonly deps: SweeperDeps) {}

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
      // Old finished records are dropped by every replica that holds one; the rest by the first primary.
      const sweep = this.deps.firstPrimary(key) === this.deps.self || this.isOldFinished(key, register);
      if (!sweep) continue;
      await this.sweepKey(key, register).catch((err: unknown) => {
        this.stats.failed++;
        this.deps.log.debug({ key, err }, 'could not settle a stalled transaction; will retry');
      });
    }
    if (seen < SWEEP_PAGE_KEYS) this.cursor = undefined;
  }

  private async sweepKey(key: string, register: Register): Promise<void> {
    const nowMs = this.deps.now();
    const deadlineMs = nowMs + this.deps.timeoutMs;
    if (register.intent !== undefined && register.intent.expiresAtMs < nowMs) {
      const resolved = await resolveIntent(this.deps, key, register.intent, deadlineMs);
      if (!resolved.pending) this.stats.settled++;
      return;
    }
    if (!key.startsWith(TXN_RECORD_PREFIX)) return;
    const txn = decodeTxnRecord(register.value);
    if (this.isOldFinished(key, register) && txn !== undefined) return this.forget(key, txn, deadlineMs);
    if (txn?.status !== 'pending' || txn.expiresAtMs >= nowMs) return;
    const reasons = txn.keys.map(() => ({
      code: 'TransactionConflict' as const,
      message: 'cancelled by recovery: its coordinator did not finish it before it expired',
    }));
    const ended = await cancelIfPending(this.deps, key.slice(TXN_RECORD_PREFIX.length), reasons, deadlineMs);
    if (ended?.status === 'cancelled') this.stats.cancelled++;
  }

  private isOldFinished(key: string, register: Register): boolean {
    if (!key.startsWith(TXN_RECORD_PREFIX)) return false;
    const txn = decodeTxnRecord(register.value);
    return (
      txn !== undefined && txn.status !== 'pending' && txn.createdAtMs + TXN_RECORD_KEEP_MS < this.deps.now()
    );
  }

  /** Settles the transaction's keys once more (a no-op unless an intent was left), then drops its record. */
  private async forget(key: string, txn: TxnRecord, deadlineMs: number): Promise<void> {
    const id = key.slice(TXN_RECORD_PREFIX.length);
    for (const k of txn.keys) await settleIntent(this.deps, k, id, txn, deadlineMs);
    if ((await this.deps.proposer.tell(key, { kind: 'forget', key })) > 0) this.stats.forgotten++;
  }
}
