/**
 * kill -9 in the middle of a transaction. One member's fault injection is armed
 * (`crashMidTransaction`, POST /v1/admin/faults): the next transaction it coordinates kills the
 * node (SIGKILL) with every intent placed and the record still pending (`after-intents`), or with
 * the record committed and no intent rolled forward yet (`after-commit`); the client gets no
 * answer. While it is armed the bank's workers send their transfers to that node, so it
 * coordinates one of them; the worker retries with the same token on another node. The node
 * stays down for the window and is restarted at its end, as after `kill`. What must hold (the bank
 * and register checkers, and the reads after the heal): the transaction commits exactly once or
 * not at all, and its intents never leave a key held for good.
 */
import { pick } from '@tessera/core';
import { type FaultDeps, runningMembers, type Started } from './nemesis-types.js';

/** How long the armed node has to take a transaction and die before the nemesis kills it itself. */
const CRASH_WAIT_MS = 10_000;

export type TransactionCrashStep = 'after-intents' | 'after-commit';

export async function crashTxn(
  deps: FaultDeps,
  setTarget: (node: string | undefined) => void,
): Promise<Started> {
  const { cluster, random } = deps;
  const node = pick(random, runningMembers(deps));
  const step: TransactionCrashStep = random() < 0.5 ? 'after-intents' : 'after-commit';
  await cluster.api(node).armCrashMidTransaction(step);
  setTarget(node);
  let died = false;
  try {
    died = await cluster.waitExited(node, CRASH_WAIT_MS);
  } finally {
    setTarget(undefined);
  }
  // Not reached in time: killed anyway, which also disarms it (the switch lives in memory).
  if (!died) await cluster.kill(node);
  return {
    detail: `${node} ${died ? 'died' : `was killed: no transaction it coordinated reached`} ${step}`,
    nodes: [node],
    end: async () => cluster.start(node),
  };
}
