/**
 * The properties of the strong-key model test, on what the clients saw:
 * - every key's history of register ops (single ops, and each transaction's effect on the key) is
 *   linearizable;
 * - the bank: every snapshot holds the opening total, lists only transfers that were not cancelled
 *   and each of them in both its accounts (a transaction is atomic); at the end no balance is
 *   negative, every committed transfer is applied exactly once (in both accounts, at the version
 *   the transaction reported), every unknown one in both accounts or neither, and an account's
 *   version counts the transfers applied to it (none applied twice);
 * - and, looking inside, once the cluster settled every majority of a key's primaries still holds
 *   the latest version any client saw (what a read through that majority would start from).
 */
import {
  checkRegisterHistory,
  currentRegister,
  EMPTY_REGISTER,
  type PrepareReply,
  rollForward,
} from '@tessera/core';
import { placementOf } from '../../src/strong/placement.js';
import type { Cluster } from './cluster.js';
import { N } from './node.js';
import { ACCOUNT_KEYS } from './plan.js';
import { accountOf, type KeyOp, OPENING_BALANCE, type Snapshot, type Workload } from './workload.js';

export interface LinearizabilityStats {
  ops: number;
  /** Keys whose check was cut off by the step budget (neither proved nor refuted). */
  cutOff: number;
}

export function checkHistories(history: readonly KeyOp[], stats: LinearizabilityStats): string[] {
  const problems: string[] = [];
  stats.ops += history.length;
  for (const [key, result] of checkRegisterHistory(history, { stepsMax: 300_000 })) {
    if (result.unknown === true) stats.cutOff++;
    else if (!result.ok) problems.push(`${key} is not linearizable:\n${result.explanation ?? ''}`);
  }
  return problems;
}

function checkSnapshot(workload: Workload, snapshot: Snapshot, label: string): string[] {
  const problems: string[] = [];
  const byId = new Map(workload.transfers.map((t) => [t.id, t]));
  const accounts = new Map(snapshot.items.map((item) => [item.key, accountOf(item.register)]));
  const total = [...accounts.values()].reduce((sum, a) => sum + a.balance, 0);
  if (total !== OPENING_BALANCE * ACCOUNT_KEYS.length) problems.push(`${label}: the total is ${total}`);
  for (const [key, account] of accounts) {
    if (new Set(account.applied).size !== account.applied.length)
      problems.push(`${label}: ${key} lists a transfer twice: ${account.applied}`);
    for (const id of account.applied) {
      const transfer = byId.get(id);
      if (transfer === undefined) {
        // Its client may still be waiting for the answer; then it is checked at the end.
        if (label === 'final snapshot') problems.push(`${label}: ${key} lists ${id}, never sent`);
        continue;
      }
      if (transfer.outcome === 'cancelled') problems.push(`${label}: ${key} lists ${id}, cancelled`);
      const other = key === transfer.from ? transfer.to : transfer.from;
      if (!(accounts.get(other)?.applied.includes(id) ?? false))
        problems.push(`${label}: ${id} is applied to ${key} but not to ${other} (not atomic)`);
    }
  }
  return problems;
}

export function checkBank(workload: Workload, final: Snapshot): string[] {
  const problems = workload.snapshots.flatMap((s, i) => checkSnapshot(workload, s, `snapshot ${i}`));
  problems.push(...checkSnapshot(workload, final, 'final snapshot'));
  const accounts = new Map(final.items.map((item) => [item.key, { ...accountOf(item.register), item }]));
  for (const [key, account] of accounts) {
    if (account.balance < 0) problems.push(`${key} has a negative balance ${account.balance}`);
    if (account.item.register.version !== account.applied.length)
      problems.push(
        `${key} is at version ${account.item.register.version} with ${account.applied.length} transfers`,
      );
  }
  for (const t of workload.transfers) {
    const inFrom = accounts.get(t.from)?.applied.indexOf(t.id) ?? -1;
    const inTo = accounts.get(t.to)?.applied.indexOf(t.id) ?? -1;
    if (t.outcome === 'committed') {
      if (inFrom < 0 || inTo < 0) problems.push(`committed transfer ${t.id} is missing at the end`);
      const expected = { [t.from]: String(inFrom + 1), [t.to]: String(inTo + 1) };
      for (const key of [t.from, t.to]) {
        if (t.versions?.[key] !== expected[key])
          problems.push(
            `transfer ${t.id} reported ${key} at version ${t.versions?.[key]}, applied at ${expected[key]}`,
          );
      }
    } else if (t.outcome === 'unknown' && inFrom < 0 !== inTo < 0) {
      problems.push(`unknown transfer ${t.id} is applied to one account only`);
    }
  }
  return problems;
}

/**
 * Every majority of each key's primaries starts a round from at least the latest version seen
 * (counting an intent as applied: its transaction may have committed).
 */
export async function checkQuorums(cluster: Cluster, history: readonly KeyOp[]): Promise<string[]> {
  const latest = new Map<string, number>();
  for (const op of history) {
    if (op.output?.ok === true) latest.set(op.key, Math.max(latest.get(op.key) ?? 0, op.output.version));
  }
  const problems: string[] = [];
  for (const [key, version] of latest) {
    const { replicas } = placementOf(cluster.nodes[0]!.view, key, N);
    const replies = await Promise.all(
      replicas.map(async (id): Promise<PrepareReply> => {
        const accepted = (await cluster.nodes.find((n) => n.id === id)!.parts.records.read(key))?.accepted;
        return accepted === undefined ? { ok: true } : { ok: true, accepted };
      }),
    );
    for (let i = 0; i < replicas.length; i++) {
      for (let j = i + 1; j < replicas.length; j++) {
        // An intent may belong to a committed transaction whose keys are not settled yet.
        const start = rollForward(currentRegister([replies[i]!, replies[j]!], EMPTY_REGISTER)).version;
        if (start < version)
          problems.push(
            `${key}: the majority ${replicas[i]},${replicas[j]} holds version ${start}, clients saw ${version}`,
          );
      }
    }
  }
  return problems;
}
