/**
 * The acceptor of the per-key consensus (CASPaxos, Rystsov 2018; classic Paxos phases 1b and 2b
 * on a register). Pure: the server persists the record before it answers.
 */
import { type Ballot, compareBallots, maxBallot } from './ballot.js';
import type { Register } from './register.js';

export interface Accepted {
  readonly ballot: Ballot;
  readonly register: Register;
}

/** One acceptor's durable state of one key. */
export interface AcceptorRecord {
  readonly promised?: Ballot;
  readonly accepted?: Accepted;
}

export type PrepareReply =
  | { readonly ok: true; readonly accepted?: Accepted }
  | { readonly ok: false; readonly promised: Ballot };

export type AcceptReply = { readonly ok: true } | { readonly ok: false; readonly promised: Ballot };

function highest(record: AcceptorRecord): Ballot | undefined {
  return maxBallot(record.promised, record.accepted?.ballot);
}

/** Phase 1b: promise `ballot` if it is above everything promised or accepted. */
export function prepare(
  record: AcceptorRecord,
  ballot: Ballot,
): { record: AcceptorRecord; reply: PrepareReply } {
  const top = highest(record);
  if (top !== undefined && compareBallots(ballot, top) <= 0)
    return { record, reply: { ok: false, promised: top } };
  const next: AcceptorRecord = { ...record, promised: ballot };
  return {
    record: next,
    reply: record.accepted === undefined ? { ok: true } : { ok: true, accepted: record.accepted },
  };
}

/**
 * Phase 2b: accept `register` at `ballot` unless a higher ballot was promised or accepted. The same
 * ballot again is accepted again (a retried message), since a ballot carries one value only.
 */
export function accept(
  record: AcceptorRecord,
  ballot: Ballot,
  register: Register,
): { record: AcceptorRecord; reply: AcceptReply } {
  const top = highest(record);
  if (top !== undefined && compareBallots(ballot, top) < 0)
    return { record, reply: { ok: false, promised: top } };
  return { record: { promised: ballot, accepted: { ballot, register } }, reply: { ok: true } };
}

/** The register a proposer starts from: the one accepted at the highest ballot among the promises. */
export function currentRegister(replies: readonly PrepareReply[], empty: Register): Register {
  let best: Accepted | undefined;
  for (const reply of replies) {
    if (!reply.ok || reply.accepted === undefined) continue;
    if (best === undefined || compareBallots(reply.accepted.ballot, best.ballot) > 0) best = reply.accepted;
  }
  return best?.register ?? empty;
}

/**
 * Two records of one key from different acceptors, as one: the higher promise and the accepted
 * register of the higher ballot. A new owner adopts the merge of a majority of the old owners'
 * records (docs/transactions.md, "Ring changes").
 */
export function mergeRecords(a: AcceptorRecord | undefined, b: AcceptorRecord | undefined): AcceptorRecord {
  if (a === undefined) return b ?? {};
  if (b === undefined) return a;
  const promised = maxBallot(a.promised, b.promised);
  const accepted = compareBallots(a.accepted?.ballot, b.accepted?.ballot) >= 0 ? a.accepted : b.accepted;
  return {
    ...(promised === undefined ? {} : { promised }),
    ...(accepted === undefined ? {} : { accepted }),
  };
}
