/**
 * This tab's actions in flight. A poll that started before an action finished may carry the cart
 * from before the action: `fresh` tells, so that such an answer is dropped.
 */
export class Inflight {
  private pending = 0;
  private epoch = 0;

  get busy(): boolean {
    return this.pending > 0;
  }

  /** A stamp to take when a poll starts. */
  stamp(): number {
    return this.epoch;
  }

  /** Whether nothing finished since `stamp` and nothing is in flight. */
  fresh(stamp: number): boolean {
    return stamp === this.epoch && this.pending === 0;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await fn();
    } finally {
      this.pending--;
      this.epoch++;
    }
  }
}
