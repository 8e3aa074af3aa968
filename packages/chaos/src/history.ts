/**
 * The history of a run, Jepsen-style: every operation is an `invoke` followed by exactly one
 * completion (`ok`: acknowledged; `fail`: surely not applied; `info`: unknown, it may have been
 * applied), plus fault intervals and the final state each replica holds. Written as JSONL, one
 * event a line, and read back by the checker and the timeline.
 */
import { createWriteStream, type WriteStream } from 'node:fs';

/** Workloads on plain keys (siblings, contexts, replicas that converge). */
export type WeakWorkload = 'set' | 'cart' | 'lww';
/** Workloads on strong keys (linearizable registers, transactions). */
export type StrongWorkload = 'register' | 'bank';
export type Workload = WeakWorkload | StrongWorkload;
export type Completion = 'ok' | 'fail' | 'info';

/** An LWW register value: who wrote it and the writer's clock (ms, possibly skewed). */
export interface LwwValue {
  readonly id: string;
  readonly ts: number;
}

/** What the read of a cart remove saw: the item in the last attempt, in any attempt. */
export interface RemoveSeen {
  readonly last: boolean;
  readonly inSomeAttempt: boolean;
}

interface OpBase {
  readonly kind: 'op';
  readonly type: 'invoke' | Completion;
  /** ms since the start of the run. */
  readonly atMs: number;
  /** The worker that ran it; a worker runs one op at a time. */
  readonly process: string;
  readonly key: string;
  readonly error?: string;
  /** The node the op's write went to, when it was sent to that node alone (no routing). */
  readonly via?: string;
  /** The node its read went to, when another than `via` (a read on one side, the write on the other). */
  readonly readVia?: string;
  /** The write quorum, when not the node's default: 1 is stored on the coordinator alone. */
  readonly w?: number;
  /** The op did not read first: a write without a context (a sibling of whatever is there). */
  readonly blind?: boolean;
}

/** What a strong register op answered (the linearizability checker's output): ok:false is a 412. */
export type RegisterOut = { ok: true; value?: string; version: number } | { ok: false; version?: number };

/** An account's value: its balance and the ids of the last transfers applied to it (workloads/bank.ts). */
export interface AccountValue {
  readonly balance: number;
  readonly applied: readonly string[];
}

/** One account as a read saw it. */
export interface AccountSeen {
  readonly key: string;
  readonly found: boolean;
  readonly version: number;
  readonly value?: AccountValue;
}

/** A transfer: its id (also its clientRequestToken), the accounts, and the versions its read saw. */
export interface Transfer {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly amount: number;
  readonly fromVersion: number;
  readonly toVersion: number;
}

/** The bank's start: every account created with `balance`, each keeping the last `window` transfer ids. */
export interface BankSetup {
  readonly accounts: readonly string[];
  readonly balance: number;
  readonly window: number;
}

export type OpEvent =
  | (OpBase & { readonly workload: 'set'; readonly f: 'add'; readonly value: number })
  | (OpBase & { readonly workload: 'cart'; readonly f: 'add'; readonly value: string })
  | (OpBase & {
      readonly workload: 'cart';
      readonly f: 'remove';
      readonly value: string;
      readonly seen?: RemoveSeen;
    })
  | (OpBase & {
      readonly workload: 'lww';
      readonly f: 'write' | 'delete';
      readonly value: LwwValue;
      /** Ids of the siblings the op's read returned (the versions its write replaces). */
      readonly observed?: readonly string[];
    })
  | (OpBase & {
      readonly workload: 'register';
      readonly f: 'read' | 'write' | 'cas' | 'delete';
      /** The value a write or cas puts (unique per write). */
      readonly value?: string;
      /** The version a cas expects (If-Match). */
      readonly expect?: number;
      /** The answer, on a completion that has one (ok, or a 412 as fail). */
      readonly out?: RegisterOut;
      /** Read after the heal, to show the key is readable. */
      readonly afterHeal?: boolean;
    })
  | (OpBase & { readonly workload: 'bank'; readonly f: 'setup'; readonly value: BankSetup })
  | (OpBase & {
      readonly workload: 'bank';
      /** A snapshot (POST /v1/transactions/get), or a plain GET of one account. */
      readonly f: 'read' | 'get';
      readonly value: readonly string[];
      readonly seen?: readonly AccountSeen[];
      readonly afterHeal?: boolean;
    })
  | (OpBase & {
      readonly workload: 'bank';
      /** A transfer, or after the heal the same transfer (same token, same actions) asked again. */
      readonly f: 'transfer' | 'resolve';
      readonly value: Transfer;
      /** Cancellation reasons of a 409. */
      readonly reasons?: readonly string[];
      /** Requests sent (more than 1: resent with the same token after an unknown outcome). */
      readonly tries?: number;
    })
  | (OpBase & {
      readonly workload: 'bank';
      /** After the heal: a transaction of conditionChecks on every account (no key held by a live transaction). */
      readonly f: 'check';
      readonly value: readonly string[];
    });

export interface FaultEvent {
  readonly kind: 'fault';
  readonly type: 'start' | 'end';
  readonly atMs: number;
  /** Pairs a start with its end. */
  readonly id: number;
  readonly fault: string;
  readonly detail: string;
  /** The nodes the fault acted on (killed, wiped, cut off); absent when it acted on links at large. */
  readonly nodes?: readonly string[];
}

export interface FinalEvent {
  readonly kind: 'final';
  readonly atMs: number;
  readonly workload: WeakWorkload;
  readonly key: string;
  /** Each replica's local sibling values (null: the replica did not answer). */
  readonly replicas: Readonly<Record<string, readonly unknown[] | null>>;
  readonly converged: boolean;
  /** ms from the heal until the replicas agreed. */
  readonly convergedAfterMs?: number;
}

export interface PhaseEvent {
  readonly kind: 'phase';
  readonly atMs: number;
  readonly phase: 'chaos' | 'heal' | 'settled' | 'unsettled' | 'final-read' | 'strong-final' | 'done';
}

export type HistoryEvent = OpEvent | FaultEvent | FinalEvent | PhaseEvent;

/** One op from invoke to completion, as the checker sees it. */
export type CompletedOp = OpEvent extends infer E
  ? E extends OpEvent
    ? Omit<E, 'type' | 'atMs'> & {
        readonly status: Completion;
        readonly invokeMs: number;
        readonly completeMs: number;
      }
    : never
  : never;

/** Events in memory and, when given a path, appended to a JSONL file as they come. */
export class History {
  readonly events: HistoryEvent[] = [];
  private readonly out: WriteStream | undefined;
  private readonly startMs = Date.now();

  constructor(path?: string) {
    this.out = path === undefined ? undefined : createWriteStream(path, { flags: 'w' });
  }

  /** ms since the history began. */
  now(): number {
    return Date.now() - this.startMs;
  }

  add(event: HistoryEvent): void {
    this.events.push(event);
    this.out?.write(`${JSON.stringify(event)}\n`);
  }

  async close(): Promise<void> {
    const out = this.out;
    if (out === undefined || out.writableEnded) return;
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
}

/**
 * Pairs each invoke with its process's next completion. An op still open at the end of the
 * history is `info`: it may or may not have been applied.
 */
/**
 * When the last event happened, at least `floorMs` (a loop, not `Math.max(...spread)`: a long run
 * has more events than a call may take arguments).
 */
export function lastEventMs(events: readonly HistoryEvent[], floorMs = 0): number {
  let last = floorMs;
  for (const e of events) if (e.atMs > last) last = e.atMs;
  return last;
}

export function completedOps(events: readonly HistoryEvent[]): CompletedOp[] {
  const open = new Map<string, OpEvent>();
  const done: CompletedOp[] = [];
  const close = (invoke: OpEvent, completion: OpEvent | undefined, endMs: number): void => {
    const { type: _type, atMs: _atMs, ...rest } = completion ?? invoke;
    done.push({
      ...rest,
      status: completion === undefined ? 'info' : (completion.type as Completion),
      invokeMs: invoke.atMs,
      completeMs: completion?.atMs ?? endMs,
    } as CompletedOp);
  };
  let lastMs = 0;
  for (const event of events) {
    lastMs = Math.max(lastMs, event.atMs);
    if (event.kind !== 'op') continue;
    const invoke = open.get(event.process);
    if (event.type === 'invoke') {
      if (invoke !== undefined) close(invoke, undefined, event.atMs);
      open.set(event.process, event);
    } else if (invoke !== undefined) {
      open.delete(event.process);
      close(invoke, event, event.atMs);
    }
  }
  for (const invoke of open.values()) close(invoke, undefined, lastMs);
  return done;
}

/** Parses a JSONL history (as written by `History`). */
export function parseHistory(text: string): HistoryEvent[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HistoryEvent);
}
