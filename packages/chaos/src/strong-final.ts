/**
 * After the heal, for the strong workloads: no transaction may stay pending and no key stay held.
 * Every strong key the run touched is read (a linearizable GET, recorded like the workers' reads,
 * so the register checker holds it to the same history); a transaction of conditionChecks on every
 * account must commit (no account is held by a live transaction's intent); every transfer whose
 * outcome stayed unknown is sent again with its token and actions, and must answer committed or
 * cancelled (unless its token may be forgotten: older than TOKEN_WINDOW_MS); last, a snapshot of every account, the bank's final state. Each step is retried until
 * the bound: the first minutes after a heal may still see a ring change finish.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@tessera/core';
import type { History } from './history.js';
import {
  type Action,
  BANK_NAMESPACE,
  type BankLedger,
  getAccount,
  snapshot,
  TOKEN_WINDOW_MS,
  transferOp,
} from './workloads/bank.js';
import { registerOp } from './workloads/register.js';
import { replyText, type StrongRoutes, strongCall } from './workloads/strong-http.js';

const RETRY_MS = 250;
/** Reads at once. */
const LANES = 4;

export interface StrongFinalOptions {
  readonly history: History;
  readonly routes: StrongRoutes;
  readonly random: Rng;
  /** Register keys the run touched. */
  readonly registerKeys: readonly string[];
  /** The bank's ledger, when the bank ran. */
  readonly ledger?: BankLedger;
  readonly timeoutMs: number;
}

export async function strongFinal(o: StrongFinalOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs;
  const { history, routes, random } = o;
  const untilOk = async (attempt: () => Promise<boolean>): Promise<boolean> => {
    while (Date.now() < deadline) {
      if (await attempt()) return true;
      await sleep(RETRY_MS);
    }
    return false;
  };
  const node = (): string | undefined => routes.pickNode(random);
  const lanes = Array.from({ length: LANES }, (_, i) => ({ process: `final-${i}`, history }));
  const registerKeys = [...o.registerKeys];
  await Promise.all(
    lanes.map(async (rec) => {
      for (let key = registerKeys.shift(); key !== undefined; key = registerKeys.shift()) {
        const k = key;
        await untilOk(async () => {
          const via = node();
          if (via === undefined) return false;
          const out = await registerOp(rec, routes.url(via), via, { key: k, f: 'read', afterHeal: true });
          return out !== undefined;
        });
      }
    }),
  );
  const ledger = o.ledger;
  if (ledger === undefined) return;
  const accounts = [...ledger.setup.accounts];
  await Promise.all(
    lanes.map(async (rec) => {
      for (let key = accounts.shift(); key !== undefined; key = accounts.shift()) {
        const k = key;
        await untilOk(async () => {
          const via = node();
          return via !== undefined && (await getAccount(rec, routes, via, k));
        });
      }
    }),
  );
  const rec = { process: 'final-bank', history };
  await untilOk(() => conditionCheck(rec, routes, node(), ledger.setup.accounts));
  for (const { transfer, actions, sinceMs } of ledger.unknown.values()) {
    // Past the token's window a repeat could run the transfer anew: not asked (the checker leaves it unknown).
    if (Date.now() - sinceMs >= TOKEN_WINDOW_MS) continue;
    await untilOk(async () => {
      const via = node();
      if (via === undefined) return false;
      const spec = { f: 'resolve', transfer, actions, first: via, attempts: 1 } as const;
      return (await transferOp(rec, routes, random, spec)) !== 'info';
    });
  }
  await untilOk(async () => {
    const via = node();
    return via !== undefined && (await snapshot(rec, routes, via, ledger.setup.accounts, true)) !== undefined;
  });
}

/** A transaction of conditionChecks (ifExists) on every account; true once it committed. */
async function conditionCheck(
  rec: { readonly process: string; readonly history: History },
  routes: StrongRoutes,
  node: string | undefined,
  accounts: readonly string[],
): Promise<boolean> {
  if (node === undefined) return false;
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'bank',
    f: 'check',
    key: BANK_NAMESPACE,
    value: accounts,
    via: node,
  } as const;
  const actions: Action[] = accounts.map((key) => ({
    type: 'conditionCheck',
    key,
    condition: { ifExists: true },
  }));
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const reply = await strongCall(routes.url(node), 'POST', '/v1/transactions', { body: { actions } });
  const ok = reply.kind === 'answer' && reply.status === 200;
  rec.history.add({
    ...op,
    type: ok ? 'ok' : reply.kind === 'unknown' ? 'info' : 'fail',
    atMs: rec.history.now(),
    ...(ok ? {} : { error: replyText(reply) }),
  });
  return ok;
}
