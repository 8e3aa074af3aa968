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
}
