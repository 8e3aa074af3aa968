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
  const unique: WriteAck[] = [];
  for (const ack of acks) if (!unique.some((u) => sameAck(u, ack))) unique.push(ack);
  const rank = (node: NodeId): number => {
    const i = preference.indexOf(node);
    return i < 0 ? preference.length : i;
  };
  unique.sort((a, b) => rank(a.node) - rank(b.node) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  return { acks: unique, replicas: replicasIn(unique), n, w };
}

/** How many distinct nodes acknowledged as one of the key's replicas. */
export function replicasIn(acks: readonly WriteAck[]): number {
  return new Set(acks.filter((a) => a.as === 'replica').map((a) => a.node)).size;
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
