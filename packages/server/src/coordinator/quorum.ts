/**
 * Waiting for a quorum (paper section 5): start one call per replica, answer as soon as `needed`
 * of them succeeded. When too many failed for that to happen, the error waits for the calls still
 * out (up to the deadline), so that it counts every reply actually received: a w=3 write with one
 * replica down says that the two others acknowledged (they hold the value), not "0 of 3". When the
 * deadline passes first, the error says how many answered by then and how many had not. The
 * calls go on after the answer; `settled` reports all of them (for read repair).
 */
import { type NodeId, TesseraError } from '@tessera/core';
import type { Deadlines } from '../util/deadlines.js';

export interface ReplicaReply<T> {
  readonly node: NodeId;
  readonly ok: boolean;
  readonly value?: T;
  readonly error?: unknown;
}

export interface QuorumOutcome<T> {
  /** The successful replies at the moment the quorum was reached. */
  readonly replies: ReplicaReply<T>[];
  /** Every reply, once all calls settled (late ones included). */
  readonly settled: Promise<ReplicaReply<T>[]>;
}

export function collectQuorum<T>(
  calls: ReadonlyArray<{ node: NodeId; run: () => Promise<T> }>,
  needed: number,
  timeoutMs: number,
  what: 'read' | 'write',
  deadlines: Deadlines,
): Promise<QuorumOutcome<T>> {
  const all: ReplicaReply<T>[] = [];
  const ok: ReplicaReply<T>[] = [];
  let resolveSettled: (r: ReplicaReply<T>[]) => void = () => {};
  const settled = new Promise<ReplicaReply<T>[]>((res) => {
    resolveSettled = res;
  });
  return new Promise<QuorumOutcome<T>>((resolve, reject) => {
    let done = false;
    /** Too many failed (or too few were asked) for the quorum: only waiting to count the rest. */
    let impossible = calls.length < needed;
    const finish = (fn: () => void): void => {
      if (done) return;
      done = true;
      cancelTimer();
      fn();
    };
    const shortfall = (code: 'INSUFFICIENT_REPLICAS' | 'TIMEOUT'): TesseraError =>
      quorumError(code, what, needed, calls.length, all);
    const cancelTimer = deadlines.add(timeoutMs, () =>
      finish(() => reject(shortfall(impossible ? 'INSUFFICIENT_REPLICAS' : 'TIMEOUT'))),
    );
    const check = (): void => {
      if (ok.length >= needed) finish(() => resolve({ replies: [...ok], settled }));
      else if (all.length === calls.length) finish(() => reject(shortfall('INSUFFICIENT_REPLICAS')));
      else if (calls.length - (all.length - ok.length) < needed) impossible = true;
    };
    check();
    for (const call of calls) {
      call.run().then(
        (value) => record({ node: call.node, ok: true, value }),
        (error: unknown) => record({ node: call.node, ok: false, error }),
      );
    }
    function record(reply: ReplicaReply<T>): void {
      all.push(reply);
      if (reply.ok) ok.push(reply);
      check();
      if (all.length === calls.length) resolveSettled(all);
    }
  });
}

/**
 * The error of a quorum not met, from the replies received so far: `answered` counts the replicas
 * that answered (acknowledged, for a write), `failed` those that failed, `pending` those that had
 * not answered when the error was made (only when the deadline passed: they may still answer, and
 * a write may still reach them).
 */
export function quorumError(
  code: 'INSUFFICIENT_REPLICAS' | 'TIMEOUT',
  what: 'read' | 'write',
  needed: number,
  asked: number,
  replies: readonly ReplicaReply<unknown>[],
): TesseraError {
  const failures = replies
    .filter((r) => !r.ok)
    .map((r) => ({ node: r.node, code: TesseraError.is(r.error) ? r.error.code : 'INTERNAL' }));
  const answered = replies.length - failures.length;
  const pending = asked - replies.length;
  const details = { needed, answered, asked, failed: failures.length, pending, failures };
  const knob = what === 'read' ? 'r' : 'w';
  const failedText =
    failures.length === 0
      ? ''
      : `; ${failures.length} failed: ${failures.map((f) => `${f.node} ${f.code}`).join(', ')}`;
  const pendingText = pending === 0 ? '' : `; ${pending} had not answered yet`;
  const counts = `(${asked} asked${failedText}${pendingText})`;
  if (code === 'TIMEOUT') {
    return new TesseraError(
      'TIMEOUT',
      `The ${what} deadline passed with ${answered} of the ${needed} replica answers it needs ${counts}. Retry, raise timeoutMs, or lower ${knob}.`,
      details,
    );
  }
  const held =
    what === 'write' && answered > 0
      ? ` The ${answered} that acknowledged hold the new version${pending === 0 ? '' : ' (the others may too)'}; hinted handoff and anti-entropy bring it to the rest.`
      : '';
  return new TesseraError(
    'INSUFFICIENT_REPLICAS',
    `${pending === 0 ? 'Only' : 'At least'} ${answered} of the ${needed} replicas a ${what} needs answered${pending === 0 ? '' : ' by the deadline'} ${counts}.${held} Retry when more nodes are up, or lower ${knob}.`,
    details,
  );
}
