/** Fault-injection switches beyond dropped links (tests and the chaos suite; see http/fault-routes.ts). */
export class FaultSwitches {
  private crashMidWrite = false;

  /** The next write this node coordinates goes out to the other replicas, then the node is killed. */
  armCrashMidWrite(): void {
    this.crashMidWrite = true;
  }

  get crashMidWriteArmed(): boolean {
    return this.crashMidWrite;
  }

  /** True once after arming: the write that asks takes the crash. */
  takeCrashMidWrite(): boolean {
    const armed = this.crashMidWrite;
    this.crashMidWrite = false;
    return armed;
  }

  private crashMidTransaction: TransactionCrashStep | undefined;

  /** The next transaction this node coordinates is killed (SIGKILL) at `step`, never answered. */
  armCrashMidTransaction(step: TransactionCrashStep): void {
    this.crashMidTransaction = step;
  }

  get crashMidTransactionArmed(): TransactionCrashStep | undefined {
    return this.crashMidTransaction;
  }

  /** Disarms every switch (a heal). */
  disarm(): void {
    this.crashMidWrite = false;
    this.crashMidTransaction = undefined;
  }

  /** True once after arming, for the transaction that reaches `step` first. */
  takeCrashMidTransaction(step: TransactionCrashStep): boolean {
    if (this.crashMidTransaction !== step) return false;
    this.crashMidTransaction = undefined;
    return true;
  }
}

/** Where a transaction's coordinator can be made to die: with its intents placed, or just after its commit. */
export type TransactionCrashStep = 'after-intents' | 'after-commit';
