/**
 * A write's receipt: how the write was stored, as its coordinator knew when it answered (the
 * `stored` of a PUT or DELETE answer, docs/api.md). It lists the nodes that had acknowledged the
 * version by then, the coordinator included once its own copy was on disk: each either as one of
 * the key's N replicas, or as a fallback holding it as a hint for one of them (sloppy quorum,
 * paper 4.6). Acknowledgements that arrive after the answer are not in it, so a receipt can
 * under-count, never over-count: the write may reach more nodes later (fan-out still under way,
 * hinted handoff, anti-entropy). During a ring change, the copies sent to the nodes the key gains
 * in the next ring are not listed either.
 */
import type { NodeId, WriteAck, WriteReceipt } from '@tessera/core';

export type { WriteAck, WriteReceipt };

/** What a put or delete answers. */
export interface WriteResult {
  /** The context of the version just written. */
  readonly context: string;
  /**
   * How it was stored. Absent only when the write was forwarded to a node of an older version,
   * whose Coordinate reply carries no receipt.
   */
  readonly stored?: WriteReceipt;
}

/** An ack of `node`: as a replica, or, with `hint` (another node), as a hint for it. */
export function ackOf(node: NodeId, hint?: NodeId): WriteAck {
  return hint === undefined || hint === node ? { node, as: 'replica' } : { node, as: 'hint', for: hint };
}

function sameAck(a: WriteAck, b: WriteAck): boolean {
  if (a.node !== b.node) return false;
  if (a.as === 'replica' || b.as === 'replica') return a.as === b.as;
  return a.for === b.for;
}

/**
 * A receipt from acks in any order: duplicates dropped, acks ordered as their nodes come in the
 * key's preference list (so replicas first), nodes not in it last; `replicas` counts the distinct
 * nodes that acknowledged as a replica.
 */
export function receiptOf(
  acks: readonly WriteAck[],
  preference: readonly NodeId[],
  n: number,
  w: number,
): WriteReceipt {
  // Loops and an insertion sort, not `some`, `sort` and a `Set`: every put makes one receipt, of
  // a handful of acks (the builtins' closures and copies cost about 1 µs a put on its coordinator).
  const unique: WriteAck[] = [];
  for (const ack of acks) {
    if (holds(unique, ack)) continue;
    let at = unique.length;
    unique.push(ack);
    for (; at > 0 && ackAfter(unique[at - 1]!, ack, preference); at--) unique[at] = unique[at - 1]!;
    unique[at] = ack;
  }
  return { acks: unique, replicas: replicasIn(unique), n, w };
}

function holds(acks: readonly WriteAck[], ack: WriteAck): boolean {
  for (const held of acks) if (sameAck(held, ack)) return true;
  return false;
}

/** Whether `a` comes after `b` in a receipt: by preference-list rank, then by node id. */
function ackAfter(a: WriteAck, b: WriteAck, preference: readonly NodeId[]): boolean {
  const byRank = rankIn(preference, a.node) - rankIn(preference, b.node);
  return byRank !== 0 ? byRank > 0 : a.node > b.node;
}

function rankIn(preference: readonly NodeId[], node: NodeId): number {
  const i = preference.indexOf(node);
  return i < 0 ? preference.length : i;
}

/** How many distinct nodes acknowledged as one of the key's replicas. */
export function replicasIn(acks: readonly WriteAck[]): number {
  let count = 0;
  for (let i = 0; i < acks.length; i++) {
    const ack = acks[i]!;
    if (ack.as !== 'replica') continue;
    let seen = false;
    for (let j = 0; j < i && !seen; j++) seen = acks[j]!.as === 'replica' && acks[j]!.node === ack.node;
    if (!seen) count++;
  }
  return count;
}

/** The acknowledgements of one write as they arrive; `receipt()` is what is known at that moment. */
export class WriteAcks {
  private readonly acks: WriteAck[] = [];

  constructor(
    private readonly preference: readonly NodeId[],
    private readonly n: number,
    private readonly w: number,
  ) {}

  /** `node` stored the version: in its data, or, with `hint`, as a hint for that replica. */
  add(node: NodeId, hint?: NodeId): void {
    this.acks.push(ackOf(node, hint));
  }

  /** The receipt as of now: acks added later do not change it. */
  receipt(): WriteReceipt {
    return receiptOf(this.acks, this.preference, this.n, this.w);
  }
}
