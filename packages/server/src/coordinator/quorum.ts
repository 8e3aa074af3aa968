/**
 * Waiting for a quorum (paper section 5): start one call per replica, answer as soon as `needed`
 * of them succeeded. When too many failed for that to happen, the error waits for the calls still
 * out (up to the deadline), so that it counts every reply actually received: a w=3 write with one
 * replica down says that the two others acknowledged (they hold the value), not "0 of 3". When the
 * deadline passes first, the error says how many answered by then and how many had not. The
 * calls go on after the answer; `settled` is told all of them (for read repair).
 */
import { type NodeId, TesseraError } from '@tessera/core';
import type { Deadlines } from '../util/deadlines.js';

export interface ReplicaReply<T> {
  readonly node: NodeId;
  readonly ok: boolean;
  readonly value?: T;
  readonly error?: unknown;
}

/**
 * A replica that is unreachable or too slow can be stood in for by the next healthy node of the
 * preference list (sloppy quorum, paper 4.6), for a read as for a write; one that refused cannot.
 */
function substitutable(err: unknown): boolean {
  return (
    TesseraError.is(err) &&
    (err.code === 'PEER_UNAVAILABLE' || err.code === 'TIMEOUT' || err.code === 'NODE_NOT_READY')
  );
}

/** A call's attempt at `node`, standing in for `standsInFor` (undefined: for no one). */
export type Attempt<T> = (node: NodeId, standsInFor: NodeId | undefined) => Promise<T>;

/**
 * Runs `attempt` at `node`, which stands in for `standsInFor` (undefined: for no one); when that
 * fails in a way another node can stand in for, at the next of `spares` (shared by the calls of one
 * request, so each spare serves one of them), standing in for the primary first asked, and so on.
 * `succeeded` learns the node that answered and whom it stood in for. One promise reaction per
 * attempt, no chain: every read and write runs this once per replica.
 */
export function standIn<T>(
  node: NodeId,
  standsInFor: NodeId | undefined,
  spares: NodeId[],
  attempt: Attempt<T>,
  succeeded: (value: T, node: NodeId, standsInFor: NodeId | undefined) => void,
  failed: (error: unknown) => void,
): void {
  attempt(node, standsInFor).then(
    (value) => succeeded(value, node, standsInFor),
    (err: unknown) => {
      const spare = substitutable(err) ? spares.shift() : undefined;
      if (spare === undefined) failed(err);
      else standIn(spare, standsInFor ?? node, spares, attempt, succeeded, failed);
    },
  );
}

/**
 * One quorum's state: a class rather than closures, since every request makes one. `finished` is
 * told once: with the successful replies when `needed` succeeded, or with the error.
 */
export class Collector<T> {
  private readonly all: ReplicaReply<T>[] = [];
  private readonly ok: ReplicaReply<T>[] = [];
  private done = false;
  /** Too many failed (or too few were asked) for the quorum: only waiting to count the rest. */
  private impossible: boolean;
  /** Told every reply once all calls settled (late ones included); reads repair with them. */
  settled: ((replies: ReplicaReply<T>[]) => void) | undefined;
  private cancelTimer: () => void = () => {};

  constructor(
    private readonly asked: number,
    private readonly needed: number,
    private readonly what: 'read' | 'write',
    private readonly finished: (error: TesseraError | undefined, replies: ReplicaReply<T>[]) => void,
  ) {
    this.impossible = asked < needed;
  }

  /** Starts the deadline (it fails the quorum after `timeoutMs`); with no call asked, settles at once. */
  begin(deadlines: Deadlines, timeoutMs: number): void {
    this.cancelTimer = deadlines.add(timeoutMs, () => this.expire());
    this.check();
  }

  record(reply: ReplicaReply<T>): void {
    this.all.push(reply);
    if (reply.ok) this.ok.push(reply);
    this.check();
    if (this.all.length === this.asked) this.settled?.(this.all);
  }

  private check(): void {
    if (this.done) return;
    if (this.ok.length >= this.needed) {
      this.finish();
      this.finished(undefined, this.ok.slice());
    } else if (this.all.length === this.asked) {
      this.finish();
      this.finished(this.shortfall('INSUFFICIENT_REPLICAS'), []);
    } else if (this.asked - (this.all.length - this.ok.length) < this.needed) {
      this.impossible = true;
    }
  }

  private expire(): void {
    if (this.done) return;
    this.finish();
    this.finished(this.shortfall(this.impossible ? 'INSUFFICIENT_REPLICAS' : 'TIMEOUT'), []);
  }

  private finish(): void {
    this.done = true;
    this.cancelTimer();
  }

  private shortfall(code: 'INSUFFICIENT_REPLICAS' | 'TIMEOUT'): TesseraError {
    return quorumError(code, this.what, this.needed, this.asked, this.all);
  }
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
