/**
 * Ring changes for strong keys (docs/transactions.md, "Ring changes"). A node that gains a
 * partition pulls every acceptor record of it from the partition's current primaries. A source
 * answers only once it sees the same pending change, and from then on refuses the partition's
 * votes: the partition is frozen. The new owner merges the pages (highest promise, highest
 * accepted ballot) and is done once a majority of the current primaries answered to the end, so it
 * holds the latest chosen register of every key; only then may the change commit.
 */
import { mergeRecords, type NodeId, type StrongRequest } from '@tessera/core';
import { majorityOf } from './placement.js';
import type { StrongSend } from './proposer.js';
import type { AcceptorRecords } from './records.js';

/** Records per pulled page. */
const PULL_PAGE_KEYS = 256;
/** Pages per source at most (a bound on one pull: 256 Mi keys per partition). */
const PULL_PAGES_MAX = 1 << 20;

export interface AdoptionDeps {
  readonly self: NodeId;
  readonly records: AcceptorRecords;
  readonly send: StrongSend;
  readonly timeoutMs: number;
}

/** Pulls partition `partition`'s records from `replicas` (its primaries now); true once a majority answered fully. */
export async function adoptPartition(
  deps: AdoptionDeps,
  partition: number,
  nextRingVersion: number,
  replicas: readonly NodeId[],
): Promise<boolean> {
  const sources = replicas.filter((node) => node !== deps.self);
  const needed = majorityOf(replicas) - (replicas.includes(deps.self) ? 1 : 0);
  let complete = 0;
  for (const source of sources) {
    if (await pullAll(deps, source, partition, nextRingVersion)) complete++;
    if (complete >= needed) return true;
  }
  return complete >= needed;
}

/**
 * A wiped node rebuilds a partition's records (docs/transactions.md, "Wiped nodes"): from every
 * other primary, since any majority that chose a register or gave a promise holds at least one of
 * them. True once all answered to the end.
 */
export async function recoverPartition(
  deps: AdoptionDeps,
  partition: number,
  replicas: readonly NodeId[],
): Promise<boolean> {
  for (const source of replicas) {
    if (source === deps.self) continue;
    if (!(await pullAll(deps, source, partition, 0, true))) return false;
  }
  return true;
}

async function pullAll(
  deps: AdoptionDeps,
  source: NodeId,
  partition: number,
  nextRingVersion: number,
  recover = false,
): Promise<boolean> {
  let afterKey: string | undefined;
  for (let page = 0; page < PULL_PAGES_MAX; page++) {
    const request: StrongRequest = {
      kind: 'pull',
      partition,
      nextRingVersion,
      keysMax: PULL_PAGE_KEYS,
      ...(afterKey === undefined ? {} : { afterKey }),
      ...(recover ? { recover: true } : {}),
    };
    let reply: Awaited<ReturnType<StrongSend>>;
    try {
      reply = await deps.send(source, request, deps.timeoutMs);
    } catch {
      return false;
    }
    if (reply.kind !== 'pull') return false;
    for (const { key, record } of reply.records)
      await deps.records.adopt(key, (mine) => mergeRecords(mine, record));
    if (reply.done) return true;
    const last = reply.records.at(-1);
    if (last === undefined) return false;
    afterKey = last.key;
  }
  return false;
}
