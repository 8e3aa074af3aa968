/**
 * Waiting for a quorum (paper section 5): start one call per replica, answer as soon as `needed`
 * of them succeeded, fail as soon as too many failed for that to happen, or when the deadline
 * passes. The calls go on after the answer; `settled` reports all of them (for read repair).
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
    const finish = (fn: () => void): void => {
      if (done) return;
      done = true;
      cancelTimer();
      fn();
    };
    const shortfall = (code: 'INSUFFICIENT_REPLICAS' | 'TIMEOUT'): TesseraError =>
      quorumError(code, what, needed, ok.length, calls.length, all);
    const cancelTimer = deadlines.add(timeoutMs, () => finish(() => reject(shortfall('TIMEOUT'))));
    if (calls.length < needed) finish(() => reject(shortfall('INSUFFICIENT_REPLICAS')));
    for (const call of calls) {
      call.run().then(
        (value) => record({ node: call.node, ok: true, value }),
        (error: unknown) => record({ node: call.node, ok: false, error }),
      );
    }
    function record(reply: ReplicaReply<T>): void {
      all.push(reply);
      if (reply.ok) ok.push(reply);
      if (ok.length >= needed) finish(() => resolve({ replies: [...ok], settled }));
      else if (calls.length - (all.length - ok.length) < needed) {
        finish(() => reject(shortfall('INSUFFICIENT_REPLICAS')));
      }
      if (all.length === calls.length) resolveSettled(all);
    }
  });
}

function quorumError(
  code: 'INSUFFICIENT_REPLICAS' | 'TIMEOUT',
  what: 'read' | 'write',
  needed: number,
  answered: number,
  asked: number,
  replies: readonly ReplicaReply<unknown>[],
): TesseraError {
  const failures = replies
    .filter((r) => !r.ok)
    .map((r) => ({ node: r.node, code: TesseraError.is(r.error) ? r.error.code : 'INTERNAL' }));
  const details = { needed, answered, asked, failures };
  const knob = what === 'read' ? 'r' : 'w';
  if (code === 'TIMEOUT') {
    return new TesseraError(
      'TIMEOUT',
      `The ${what} deadline passed with ${answered} of the ${needed} replica answers it needs. Retry, raise timeoutMs, or lower ${knob}.`,
      details,
    );
  }
  return new TesseraError(
    'INSUFFICIENT_REPLICAS',
    `Only ${answered} of the ${needed} replicas a ${what} needs answered (${asked} asked). Retry when more nodes are up, or lower ${knob}.`,
    details,
  );
}
