/**
 * A node-wide, persisted lower bound for the counters of the dots this node stamps: every dot
 * this node ever makes is unique, across all keys and restarts, whatever happened to its data.
 * Counters are handed out from a block whose end is persisted before any of it is used.
 *
 * A node whose data dir was lost (a replaced disk, rejoining under the same node id) finds no
 * persisted bound, while other replicas' clocks still hold its old counters: restarting from 1
 * would make its new writes look already seen, and they would be dropped. So counters also start
 * at least at the clock in microseconds (`nowMs * 1000`), above any counter the node could have
 * used before unless it averaged over a million writes a second or its clock went back.
 */
import type { StorageEngine } from '../storage/engine.js';

const KEY = 'dot-counter-high';
const BLOCK = 1_000_000;

export class DotCounter {
  private extending: Promise<void> | undefined;

  private constructor(
    private readonly engine: StorageEngine,
    private next: number,
    private high: number,
  ) {}

  static async load(engine: StorageEngine, nowMs: number): Promise<DotCounter> {
    const bytes = await engine.get('meta', KEY);
    const persisted = bytes === undefined ? 0 : Number(new TextDecoder().decode(bytes));
    const stored = Number.isSafeInteger(persisted) && persisted >= 0 ? persisted : 0;
    const start = Math.max(stored, Math.floor(Math.max(0, nowMs)) * 1000);
    const counter = new DotCounter(engine, start + 1, start);
    await counter.extend();
    return counter;
  }

  /** A counter no dot of this node has used yet. */
  async take(): Promise<number> {
    while (this.next > this.high) await this.extend();
    const value = this.next++;
    if (this.high - this.next < BLOCK / 2 && this.extending === undefined) void this.extend();
    return value;
  }

  private extend(): Promise<void> {
    this.extending ??= this.persist(this.high + BLOCK).finally(() => {
      this.extending = undefined;
    });
    return this.extending;
  }

  private async persist(high: number): Promise<void> {
    await this.engine.batch(
      [{ type: 'put', ns: 'meta', key: KEY, value: new TextEncoder().encode(String(high)) }],
      { sync: true },
    );
    this.high = Math.max(this.high, high);
  }
}
