/** What the checker reports. Every list names the ops or keys at fault, so a report can be acted on. */
import type { LwwValue } from '../history.js';

export interface OpRef<V> {
  readonly key: string;
  readonly value: V;
  readonly process: string;
  readonly invokeMs: number;
  readonly completeMs: number;
}

export interface SetReport {
  readonly keys: number;
  readonly acknowledged: number;
  /** Acknowledged adds missing from the final set: must be empty. */
  readonly lost: OpRef<number>[];
  /** Adds whose outcome the client does not know (failed or timed out after maybe being applied). */
  readonly indeterminate: number;
  /** Of those, how many made it into the final set (allowed either way). */
  readonly indeterminatePresent: number;
  /** Elements in a final set that no client ever tried to add: must be empty. */
  readonly phantom: { key: string; value: number }[];
}

export interface CartReport {
  readonly keys: number;
  readonly addsAcknowledged: number;
  readonly removesAcknowledged: number;
  /** Acknowledged adds gone from the final cart though no remove can have seen them: must be empty. */
  readonly lost: OpRef<string>[];
  /** Items an acknowledged remove saw and removed that are back in the final cart: must be empty. */
  readonly resurrected: OpRef<string>[];
  readonly phantom: { key: string; value: string }[];
}

export interface LwwReport {
  readonly keys: number;
  readonly writesAcknowledged: number;
  /**
   * Acknowledged writes no op replaced (no op that may have been applied read them) yet missing
   * from the final siblings: the store dropped a version it could not prove superseded. Must be empty.
   */
  readonly lost: OpRef<LwwValue>[];
  /** Versions an acknowledged write or delete read and replaced, back among the final siblings: must be empty. */
  readonly resurrected: LwwResurrected[];
  /** Final siblings no client wrote: must be empty. */
  readonly phantom: { key: string; id: string }[];
  /** Acknowledged writes that are not the final value: allowed (the documented semantics of LWW). */
  readonly overwritten: number;
  /**
   * Acknowledged writes with a later timestamp than the final value that a causally later write
   * replaced (a writer with a slow clock read them and wrote over them): allowed, informational.
   */
  readonly olderTimestampWon: number;
}

/** A replaced version back, with the first acknowledged op that read and replaced it. */
export interface LwwResurrected {
  readonly key: string;
  readonly id: string;
  /** Whether that op deleted the key or wrote over it. */
  readonly f: 'write' | 'delete';
  readonly by: OpRef<LwwValue>;
}

/** What one fault kind may have caused: see checker/faults.ts for how a violation is charged. */
export interface FaultTally {
  /** Windows of this kind in the run. */
  readonly windows: number;
  /** Acknowledged adds and writes lost on keys a window of this kind acted on while they were in use. */
  readonly lost: number;
  /** Removed items and replaced or deleted versions back on such keys. */
  readonly resurrected: number;
}

export interface ByFault {
  /** Per fault kind; a violation with several suspects counts under each. */
  readonly kinds: Readonly<Record<string, FaultTally>>;
  /** Violations no fault window was up for. */
  readonly unattributed: { readonly lost: number; readonly resurrected: number };
}

export interface ConvergenceReport {
  readonly keys: number;
  /** Keys whose replicas did not agree within the bound after healing: must be empty. */
  readonly notConverged: string[];
  /** Whether the ring settled after the heal (every member saw the same ring, no change pending): must be true. */
  readonly ringSettled: boolean;
  /** The slowest key to converge after the heal, ms. */
  readonly slowestMs: number;
}

/** One strong register's history, checked for linearizability on its own. */
export interface RegisterKeyReport {
  readonly key: string;
  /** Ops given to the checker (reads that failed or have no answer are left out: they change nothing). */
  readonly ops: number;
  readonly ok: number;
  /** Compare-and-sets refused with a 412 (a definite "did not apply", with the version met). */
  readonly casRefused: number;
  /** Writes, compare-and-sets and deletes with no answer (they may have applied, at any time after their call). */
  readonly unknown: number;
  readonly linearizable: boolean;
  /** The search ran out of its budget: neither proven nor refuted. */
  readonly inconclusive: boolean;
  /** When not linearizable: the longest linearizable prefix and the op that could not be placed. */
  readonly explanation?: string;
}

export interface RegisterReport {
  readonly keys: number;
  /** Ops by function, every completion. */
  readonly ops: {
    readonly read: number;
    readonly write: number;
    readonly cas: number;
    readonly delete: number;
  };
  readonly acknowledged: number;
  readonly casRefused: number;
  readonly unknown: number;
  readonly perKey: RegisterKeyReport[];
  /** Keys whose history is not linearizable: must be empty. */
  readonly notLinearizable: string[];
  /** Keys the search could not decide within its budget: must be empty. */
  readonly inconclusive: string[];
  /** Keys no read after the heal could read (a key left held, or a majority that never came back): must be empty. */
  readonly unreadableAfterHeal: string[];
}

/** A broken promise of the bank (checker/bank.ts says which kinds there are). */
export interface BankViolation {
  readonly kind:
    | 'setup'
    | 'bad-value'
    | 'conflicting-reads'
    | 'list-length'
    | 'uncovered'
    | 'double-applied'
    | 'phantom'
    | 'stale-write'
    | 'balance'
    | 'negative'
    | 'snapshot-total'
    | 'total'
    | 'partial'
    | 'lost'
    | 'cancelled-applied'
    | 'contradicting-outcomes'
    | 'token-mismatch';
  readonly detail: string;
  readonly transfer?: string;
  readonly account?: string;
}

export interface BankReport {
  readonly accounts: number;
  readonly initialTotal: number;
  /** The sum of the balances in the last state seen (the final snapshot). */
  readonly finalTotal: number | null;
  readonly transfers: {
    readonly attempted: number;
    readonly acknowledged: number;
    /** Cancelled (409), or never sent: surely not applied. */
    readonly notApplied: number;
    /** Still unknown at the end of the run (before being asked again after the heal). */
    readonly unknown: number;
    /** Of the unknown ones, how many turned out applied. */
    readonly unknownApplied: number;
    /** Unknown ones that answered when asked again (same token): by their worker later, or after the heal. */
    readonly resolvedAfterHeal: number;
    /** Transfers applied, from the accounts' histories. */
    readonly applied: number;
    /** Transfers the worker sent again (same token) after an unknown outcome, and how many of those committed. */
    readonly resent: number;
    readonly resentCommitted: number;
  };
  /** Successful reads (snapshots and single gets), and how many covered every account. */
  readonly reads: number;
  readonly snapshotsOfAll: number;
  /** Every broken promise: must be empty. */
  readonly violations: BankViolation[];
  /** After the heal (must all be empty or true): see strong-final.ts. */
  readonly afterHeal: {
    readonly checked: boolean;
    readonly unreadable: string[];
    readonly conditionCheckCommitted: boolean;
    readonly unresolved: string[];
    readonly finalSnapshot: boolean;
  };
}

export interface CheckReport {
  /** True when nothing that must be empty is non-empty. */
  readonly valid: boolean;
  readonly ops: { readonly total: number; readonly ok: number; readonly fail: number; readonly info: number };
  readonly set: SetReport;
  readonly cart: CartReport;
  readonly lww: LwwReport;
  readonly register: RegisterReport;
  readonly bank: BankReport;
  readonly convergence: ConvergenceReport;
  readonly byFault: ByFault;
  /**
   * Ops acknowledged with W=1 through a node later wiped, or not a replica of the key, counted as
   * unknown: the client was promised one copy, and it may be gone (checker/faults.ts).
   */
  readonly weakAtRisk: number;
}
