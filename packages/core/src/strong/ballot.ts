/**
 * Ballots of the per-key consensus that strong keys use (CASPaxos: Paxos on a register, one
 * round per change). A ballot is a round number and the proposer that owns it; the proposer id is
 * unique per proposal attempt, so two proposals never share a ballot. Totally ordered.
 */

export interface Ballot {
  readonly round: number;
  /** Unique per proposal attempt: the node, a per-process nonce and a sequence number. */
  readonly proposer: string;
}

/** Orders ballots; `undefined` (nothing promised or accepted yet) is below every ballot. */
export function compareBallots(a: Ballot | undefined, b: Ballot | undefined): number {
  if (a === undefined) return b === undefined ? 0 : -1;
  if (b === undefined) return 1;
  if (a.round !== b.round) return a.round - b.round;
  return a.proposer < b.proposer ? -1 : a.proposer > b.proposer ? 1 : 0;
}

/** The higher of two ballots. */
export function maxBallot(a: Ballot | undefined, b: Ballot | undefined): Ballot | undefined {
  return compareBallots(a, b) >= 0 ? a : b;
}

/** A ballot for `proposer` above every ballot in `seen`. */
export function ballotAbove(seen: readonly (Ballot | undefined)[], proposer: string): Ballot {
  let round = 0;
  for (const b of seen) if (b !== undefined && b.round > round) round = b.round;
  return { round: round + 1, proposer };
}
