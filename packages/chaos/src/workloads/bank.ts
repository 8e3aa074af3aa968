/**
 * The bank: K accounts `accounts/a<i>` (a strong namespace), created at the start with the same
 * balance, and workers that move money between two of them with transactions: read both with
 * POST /v1/transactions/get, then POST /v1/transactions with two puts, each conditioned on the
 * version the read saw (ifVersion), under a fresh clientRequestToken (the transfer's id). After an
 * unknown outcome (a reset, a timeout, a 5xx) the worker sends the same request again, the same
 * token and actions, a few times: the token makes that safe. One still unknown after that is sent
 * again by its worker a few seconds later, and after the heal, while the token is remembered. Now and then a worker reads every
 * account in one snapshot (its total must be the initial total).
 *
 * How exactly-once is checked (checker/bank.ts). Each account's value is
 * `{ balance, applied: [ids of the last WINDOW transfers applied to it, oldest first] }`: a transfer
 * appends its id to both accounts' lists. The account's version counts its writes: the create
 * made version 1 (applied []), and every transfer that commits adds exactly one version and one id,
 * so a value seen at version v names the transfer that made each version from v - len + 1 to v.
 * Every transfer reads both accounts right before it writes them, and its ifVersion means the
 * version it makes is the one after the version it read: so the reads (recorded in the history)
 * and the final read together see every version of every account, and the checker rebuilds, for
 * each account, the whole sequence of transfers applied to it, however long the run. The list
 * stays bounded (WINDOW ids), and no id is ever guessed: a version no read covers is a violation.
 * From those sequences: no transfer applied twice, none applied to one account and not the other,
 * every acknowledged one applied, every cancelled one not, every balance seen is the initial
 * balance plus the transfers applied up to its version, the total never changes, none is negative.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { between, pick, type Rng } from '@tessera/core';
import type { AccountSeen, AccountValue, BankSetup, Completion, Transfer } from '../history.js';
import { errorOf, keyPath, replyText, type StrongRoutes, strongCall, versionOf } from './strong-http.js';
import type { Recorder, Step, WorkerContext } from './worker.js';

export const BANK_NAMESPACE = 'accounts';
export const BANK_DEFAULTS: BankSetup = {
  accounts: Array.from({ length: 5 }, (_, i) => `${BANK_NAMESPACE}/a${i}`),
  balance: 100,
  window: 50,
};
/** Of a bank worker's steps, this share reads every account at once; the rest are transfers. */
const READ_ALL_SHARE = 0.1;
/** Requests of one transfer at most (the first and the retries after unknown outcomes). */
const TRANSFER_ATTEMPTS = 4;
const RETRY_PAUSE_MS: readonly [number, number] = [100, 400];
const AMOUNT_MAX = 10;

/** A transaction's actions, as sent (a retry must send the very same ones). */
export type Action =
  | { type: 'put'; key: string; value: AccountValue; condition: { ifVersion: string } | { ifAbsent: true } }
  | { type: 'conditionCheck'; key: string; condition: { ifExists: true } };

/**
 * How long a token is surely remembered: a node answers a repeated token with the first outcome for
 * 10 minutes (then the transaction record may be dropped, and a repeat would run it anew).
 */
export const TOKEN_WINDOW_MS = 9 * 60_000;
/** A worker asks again about one of its transfers still unknown after this long. */
const ASK_AGAIN_AFTER_MS = 3_000;

/** A transfer whose outcome is still unknown: asked again by its worker, and after the heal. */
export interface UnknownTransfer {
  readonly transfer: Transfer;
  readonly actions: Action[];
  readonly process: string;
  /** Date.now() of its first request. */
  readonly sinceMs: number;
}

export class BankLedger {
  readonly unknown = new Map<string, UnknownTransfer>();
  constructor(readonly setup: BankSetup) {}

  /** One of `process`'s unknown transfers to ask about again, while its token is remembered. */
  due(process: string, nowMs: number): UnknownTransfer | undefined {
    for (const u of this.unknown.values()) {
      const age = nowMs - u.sinceMs;
      if (u.process === process && age >= ASK_AGAIN_AFTER_MS && age < TOKEN_WINDOW_MS) return u;
    }
    return undefined;
  }
}

export function bankStep(ledger: BankLedger): Step {
  const { accounts } = ledger.setup;
  return async (ctx) => {
    const node = ctx.strong.pickNode(ctx.random);
    if (node === undefined) {
      await sleep(100);
      return;
    }
    // A transfer of this worker left unknown: the same request again (same token), as a client would.
    const due = ledger.due(ctx.process, Date.now());
    if (due !== undefined) {
      const spec = {
        f: 'resolve',
        transfer: due.transfer,
        actions: due.actions,
        first: node,
        attempts: 1,
      } as const;
      if ((await transferOp(ctx, ctx.strong, ctx.random, spec)) !== 'info')
        ledger.unknown.delete(due.transfer.id);
      return;
    }
    if (ctx.random() < READ_ALL_SHARE) {
      await snapshot(ctx, ctx.strong, node, accounts);
      return;
    }
    const from = pick(ctx.random, accounts);
    const to = pick(
      ctx.random,
      accounts.filter((a) => a !== from),
    );
    // The crash-txn fault's node coordinates the transfer itself (its read may go anywhere).
    const coordinator = ctx.strong.crashTarget() ?? node;
    const seen = await snapshot(ctx, ctx.strong, node, [from, to]);
    const [a, b] = seen ?? [];
    if (a?.value === undefined || b?.value === undefined || a.value.balance <= 0) return;
    const amount = between(ctx.random, 1, Math.min(AMOUNT_MAX, a.value.balance));
    const transfer: Transfer = {
      id: `t${ctx.nextId()}`,
      from,
      to,
      amount,
      fromVersion: a.version,
      toVersion: b.version,
    };
    const actions = transferActions(transfer, a.value, b.value, ledger.setup.window);
    const sinceMs = Date.now();
    const type = await transferOp(ctx, ctx.strong, ctx.random, {
      f: 'transfer',
      transfer,
      actions,
      first: coordinator,
      attempts: TRANSFER_ATTEMPTS,
    });
    if (type === 'info')
      ledger.unknown.set(transfer.id, { transfer, actions, process: ctx.process, sinceMs });
  };
}

/** The two puts of a transfer, each on the version its read saw. */
export function transferActions(t: Transfer, from: AccountValue, to: AccountValue, window: number): Action[] {
  const after = (v: AccountValue, delta: number): AccountValue => ({
    balance: v.balance + delta,
    applied: [...v.applied, t.id].slice(-window),
  });
  return [
    {
      type: 'put',
      key: t.from,
      value: after(from, -t.amount),
      condition: { ifVersion: String(t.fromVersion) },
    },
    { type: 'put', key: t.to, value: after(to, t.amount), condition: { ifVersion: String(t.toVersion) } },
  ];
}

/** A snapshot of `keys` (POST /v1/transactions/get), recorded as a read; undefined unless answered. */
export async function snapshot(
  rec: Recorder,
  routes: StrongRoutes,
  node: string,
  keys: readonly string[],
  afterHeal = false,
): Promise<AccountSeen[] | undefined> {
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'bank',
    f: 'read',
    key: keys.length === 1 ? (keys[0] ?? '') : BANK_NAMESPACE,
    value: keys,
    via: node,
    ...(afterHeal ? { afterHeal } : {}),
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const reply = await strongCall(routes.url(node), 'POST', '/v1/transactions/get', {
    body: { keys },
    ...(rec.signal === undefined ? {} : { signal: rec.signal }),
  });
  const items = reply.kind === 'answer' && reply.status === 200 ? parseItems(reply.body) : undefined;
  if (items === undefined) {
    const type: Completion = reply.kind === 'unknown' ? 'info' : 'fail';
    rec.history.add({ ...op, type, atMs: rec.history.now(), error: replyText(reply) });
    return undefined;
  }
  rec.history.add({ ...op, type: 'ok', atMs: rec.history.now(), seen: items });
  return items;
}

/** A plain GET of one account (after the heal: every strong key must be readable). */
export async function getAccount(
  rec: Recorder,
  routes: StrongRoutes,
  node: string,
  key: string,
): Promise<boolean> {
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'bank',
    f: 'get',
    key,
    value: [key],
    via: node,
    afterHeal: true,
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const reply = await strongCall(routes.url(node), 'GET', `${keyPath(key)}?missing=ok`);
  if (reply.kind === 'answer' && reply.status === 200) {
    const body = reply.body as { value?: unknown; version?: unknown };
    const item = parseItem({ key, found: 'value' in body, value: body.value, version: body.version });
    if (item !== undefined) {
      rec.history.add({ ...op, type: 'ok', atMs: rec.history.now(), seen: [item] });
      return true;
    }
  }
  const type: Completion = reply.kind === 'unknown' ? 'info' : 'fail';
  rec.history.add({ ...op, type, atMs: rec.history.now(), error: replyText(reply) });
  return false;
}

export interface TransferSpec {
  readonly f: 'transfer' | 'resolve';
  readonly transfer: Transfer;
  readonly actions: readonly Action[];
  /** The node of the first request (the coordinator). */
  readonly first: string;
  readonly attempts: number;
}

/**
 * Sends the transfer's transaction, and again after an unknown outcome (same token, same
 * actions); records one op. ok: committed; fail: cancelled (409), or never sent (a first try
 * only: a transfer asked about again was sent before); info: unknown.
 */
export async function transferOp(
  rec: Recorder,
  routes: StrongRoutes,
  random: Rng,
  spec: TransferSpec,
): Promise<Completion> {
  const { transfer, actions } = spec;
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'bank',
    f: spec.f,
    key: `${transfer.from}>${transfer.to}`,
    value: transfer,
    via: spec.first,
  } as const;
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const body = { clientRequestToken: transfer.id, actions };
  const signal = rec.signal === undefined ? {} : { signal: rec.signal };
  // Asking again about a transfer already sent: a refused connection says nothing of it.
  let sent = spec.f === 'resolve';
  let node: string | undefined = spec.first;
  let last = 'not sent';
  let tries = 0;
  for (let attempt = 0; attempt < spec.attempts && node !== undefined; attempt++) {
    if (rec.signal?.aborted === true) break;
    tries++;
    const reply = await strongCall(routes.url(node), 'POST', '/v1/transactions', { body, ...signal });
    last = `${node}: ${replyText(reply)}`;
    if (reply.kind === 'answer') {
      const { code, details } = errorOf(reply.body);
      if (reply.status === 200) {
        rec.history.add({ ...op, type: 'ok', atMs: rec.history.now(), tries });
        return 'ok';
      }
      if (reply.status === 409 && code === 'TRANSACTION_CANCELED') {
        const reasons = reasonCodes(details.cancellationReasons);
        rec.history.add({ ...op, type: 'fail', atMs: rec.history.now(), reasons, error: last, tries });
        return 'fail';
      }
      if (reply.status === 400 || reply.status === 429) {
        // A mismatch of the token with the same actions is a bug the checker reports (the op stays unknown).
        const type: Completion = sent || code === 'IDEMPOTENT_PARAMETER_MISMATCH' ? 'info' : 'fail';
        rec.history.add({ ...op, type, atMs: rec.history.now(), error: last, tries });
        return type;
      }
    }
    if (reply.kind !== 'refused') {
      sent = true;
      await sleep(between(random, ...RETRY_PAUSE_MS), undefined, signal).catch(() => {});
    }
    node = routes.pickNode(random, node);
  }
  const type: Completion = sent ? 'info' : 'fail';
  rec.history.add({ ...op, type, atMs: rec.history.now(), error: last, tries });
  return type;
}

/** Creates every account with the starting balance (one transaction, ifAbsent), retried until it is there. */
export async function setupBank(
  rec: Recorder,
  routes: StrongRoutes,
  random: Rng,
  setup: BankSetup,
  timeoutMs: number,
): Promise<void> {
  const op = {
    kind: 'op',
    process: rec.process,
    workload: 'bank',
    f: 'setup',
    key: BANK_NAMESPACE,
    value: setup,
  } as const;
  const actions: Action[] = setup.accounts.map((key) => ({
    type: 'put',
    key,
    value: { balance: setup.balance, applied: [] },
    condition: { ifAbsent: true },
  }));
  rec.history.add({ ...op, type: 'invoke', atMs: rec.history.now() });
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const node = routes.pickNode(random);
    if (node !== undefined) {
      const reply = await strongCall(routes.url(node), 'POST', '/v1/transactions', {
        body: { clientRequestToken: 'bank-setup', actions },
      });
      last = `${node}: ${replyText(reply)}`;
      if (reply.kind === 'answer' && reply.status === 200) {
        rec.history.add({ ...op, type: 'ok', atMs: rec.history.now() });
        return;
      }
    }
    await sleep(250);
  }
  rec.history.add({ ...op, type: 'info', atMs: rec.history.now(), error: last });
  throw new Error(`the bank's accounts could not be created: ${last}`);
}

function reasonCodes(reasons: unknown): string[] {
  if (!Array.isArray(reasons)) return [];
  return reasons.map((r) => {
    const { code, currentVersion } = (r ?? {}) as { code?: unknown; currentVersion?: unknown };
    return `${String(code)}${currentVersion === undefined ? '' : `@${String(currentVersion)}`}`;
  });
}

function parseItems(body: unknown): AccountSeen[] | undefined {
  const items = (body as { items?: unknown }).items;
  if (!Array.isArray(items)) return undefined;
  const parsed = items.map(parseItem);
  return parsed.every((i) => i !== undefined) ? (parsed as AccountSeen[]) : undefined;
}

/** One item of a snapshot; a value that is not an account's is kept as found without a value (the checker flags it). */
function parseItem(item: unknown): AccountSeen | undefined {
  const { key, found, value, version } = (item ?? {}) as Record<string, unknown>;
  const v = versionOf(version);
  if (typeof key !== 'string' || typeof found !== 'boolean' || Number.isNaN(v)) return undefined;
  if (!found) return { key, found, version: v };
  return isAccountValue(value) ? { key, found, version: v, value } : { key, found, version: v };
}

function isAccountValue(value: unknown): value is AccountValue {
  const v = value as { balance?: unknown; applied?: unknown } | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.balance === 'number' &&
    Array.isArray(v.applied) &&
    v.applied.every((id) => typeof id === 'string')
  );
}

/** A worker's context narrowed to what the after-heal steps need. */
export type BankRecorder = Pick<WorkerContext, 'process' | 'history'>;
