/**
 * Faults and the violations they may have caused. A violation (an acknowledged add or write lost,
 * a removed item or replaced version back) names a key and the op that made the promise; it is
 * charged to every fault window that was up between that op's start and the last op on the key,
 * and that acted on links at large or on a node that held the key: one of its replicas at the end,
 * or a node an op on it went through. (After a membership change the replicas at the end may not be
 * those of the time, so then every node counts.) A run with one fault kind charges it everything; a
 * mixed run narrows the suspects to a few windows.
 *
 * Also here: writes acknowledged with W=1 through one node had, for all the client knew, no other
 * copy. When that node was later wiped, or held the key only as a fallback (a copy no replica can
 * reach for the whole grace period may be dropped), they count as unknown (`info`), not as promises.
 */
import {
  type CompletedOp,
  type FaultEvent,
  type FinalEvent,
  type HistoryEvent,
  lastEventMs,
} from '../history.js';
import type { ByFault, FaultTally } from './types.js';

export interface FaultWindow {
  readonly kind: string;
  readonly detail: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly nodes?: readonly string[];
}

/** A violation: its key and when the op that made the broken promise started. */
export interface Violation {
  readonly key: string;
  readonly kind: 'lost' | 'resurrected';
  readonly fromMs: number;
}

/** Fault windows from start and end events; a window never ended runs to the end of the history. */
export function faultWindows(events: readonly HistoryEvent[]): FaultWindow[] {
  const endMs = lastEventMs(events);
  const starts = new Map<number, FaultEvent>();
  const windows: FaultWindow[] = [];
  const close = (start: FaultEvent, atMs: number): void => {
    windows.push({
      kind: start.fault,
      detail: start.detail,
      startMs: start.atMs,
      endMs: atMs,
      ...(start.nodes === undefined ? {} : { nodes: start.nodes }),
    });
  };
  for (const e of events) {
    if (e.kind !== 'fault') continue;
    const start = starts.get(e.id);
    if (e.type === 'start') starts.set(e.id, e);
    else if (start !== undefined) {
      starts.delete(e.id);
      close(start, e.atMs);
    }
  }
  for (const start of starts.values()) close(start, endMs);
  return windows.sort((a, b) => a.startMs - b.startMs);
}

/** Charges each violation to the windows that may have caused it, per kind. */
export function chargeFaults(
  windows: readonly FaultWindow[],
  violations: readonly Violation[],
  ops: readonly CompletedOp[],
  finals: readonly FinalEvent[],
): ByFault {
  const lastMs = new Map<string, number>();
  for (const op of ops) lastMs.set(op.key, Math.max(lastMs.get(op.key) ?? 0, op.completeMs));
  const holders = keyHolders(ops, finals, windows);
  const kinds = new Map<string, { windows: number; lost: number; resurrected: number }>();
  for (const w of windows) {
    const tally = kinds.get(w.kind) ?? { windows: 0, lost: 0, resurrected: 0 };
    tally.windows++;
    kinds.set(w.kind, tally);
  }
  const unattributed = { lost: 0, resurrected: 0 };
  for (const v of violations) {
    const suspects = suspectKinds(windows, v, lastMs.get(v.key), holders?.get(v.key));
    for (const kind of suspects) {
      const tally = kinds.get(kind);
      if (tally !== undefined) tally[v.kind]++;
    }
    if (suspects.size === 0) unattributed[v.kind]++;
  }
  return { kinds: Object.fromEntries(kinds) as Record<string, FaultTally>, unattributed };
}

/**
 * Per key, the nodes known to have held it: its replicas at the end, and the nodes ops on it went
 * through. Undefined (every node may have) after a membership change.
 */
function keyHolders(
  ops: readonly CompletedOp[],
  finals: readonly FinalEvent[],
  windows: readonly FaultWindow[],
): Map<string, Set<string>> | undefined {
  if (windows.some((w) => w.kind === 'membership')) return undefined;
  const holders = new Map(finals.map((f) => [f.key, new Set(Object.keys(f.replicas))]));
  for (const op of ops) {
    const set = holders.get(op.key) ?? new Set<string>();
    for (const node of [op.via, op.readVia]) if (node !== undefined) set.add(node);
    holders.set(op.key, set);
  }
  return holders;
}

/** Kinds of the windows up between the violating op's start and the key's last op, on a node that held it. */
function suspectKinds(
  windows: readonly FaultWindow[],
  v: Violation,
  keyLastMs: number | undefined,
  holders: ReadonlySet<string> | undefined,
): Set<string> {
  const untilMs = keyLastMs ?? Number.POSITIVE_INFINITY;
  const onKey = (w: FaultWindow): boolean =>
    w.nodes === undefined || holders === undefined || w.nodes.some((n) => holders.has(n));
  return new Set(
    windows.filter((w) => w.startMs <= untilMs && w.endMs >= v.fromMs && onKey(w)).map((w) => w.kind),
  );
}

/**
 * Ops acknowledged with W=1 through a node (`via`) that a later wipe emptied, or that is not a
 * replica of the key at the end, count as `info`: the only copy the client was promised may have
 * gone with the data dir, or been a fallback's copy dropped after the grace. Answers the ops and
 * how many were so downgraded.
 */
export function withoutWeakWritesAtRisk(
  ops: readonly CompletedOp[],
  windows: readonly FaultWindow[],
  finals: readonly FinalEvent[],
): { ops: CompletedOp[]; downgraded: number } {
  const wipes = windows.filter((w) => w.kind === 'wipe');
  const replicas = new Map(finals.map((f) => [f.key, Object.keys(f.replicas)]));
  const atRisk = (op: CompletedOp, via: string): boolean =>
    wipes.some((w) => w.endMs >= op.invokeMs && (w.nodes ?? []).includes(via)) ||
    !(replicas.get(op.key)?.includes(via) ?? true);
  let downgraded = 0;
  const out = ops.map((op) => {
    if (op.status !== 'ok' || op.w !== 1 || op.via === undefined || !atRisk(op, op.via)) return op;
    downgraded++;
    return { ...op, status: 'info' } as CompletedOp;
  });
  return { ops: out, downgraded };
}
