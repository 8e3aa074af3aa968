/**
 * What each replica holds: every node's own stored copy of a cart (a `?local=true` read, no
 * quorum), compared with the others'. During a split the copies diverge; after the heal read repair
 * and anti-entropy bring them together again.
 */

/** copy: the node answered with its copy; no-copy: it holds nothing for the key; no-answer: it did not answer. */
export type ReplicaState = 'copy' | 'no-copy' | 'no-answer';

export interface ReplicaItem {
  readonly productId: string;
  readonly name: string;
  readonly quantity: number;
}

export interface ReplicaCopy {
  readonly nodeId: string;
  readonly state: ReplicaState;
  /** When the store read this node's copy (ISO time). */
  readonly readAt: string;
  /** How many versions (siblings) the node stores. */
  readonly versions: number;
  /** The node's copy, its versions merged as the cart resolver merges them. */
  readonly items: readonly ReplicaItem[];
  /** The newest version's time, or null without a copy. */
  readonly lastModified: string | null;
  /**
   * Nodes that hold exactly the same versions share a group number (0, 1, …, in the order of the
   * nodes); null for a node that did not answer.
   */
  readonly group: number | null;
  /** Holds everything any node holds: no change is missing here, and no merge has replaced its versions. */
  readonly complete: boolean;
  /** Holds the same cart as the complete copies but still as several versions that a merge replaced elsewhere. */
  readonly mergePending: boolean;
  /** What other nodes hold that this one has not received, in words ("the Fern", "the removal of the Copper kettle"). */
  readonly missing: readonly string[];
}

export interface ReplicasView {
  readonly cartId: string;
  /** When the store asked the nodes (ISO time). */
  readonly observedAt: string;
  readonly nodes: readonly ReplicaCopy[];
}
