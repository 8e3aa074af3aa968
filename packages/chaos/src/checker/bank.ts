/**
 * The bank (workloads/bank.ts): money moves between accounts only by transactions, exactly once.
 *
 * From every account value any read saw (`{ balance, applied }` at a version), the checker rebuilds
 * which transfer made each version of each account: a value at version v whose list holds L ids
 * names the makers of versions v - L + 1 .. v (version 1 is the create, with an empty list; a list
 * shorter than the window must hold exactly v - 1 ids). Two reads that name different makers of one
 * version, or different balances at one version, contradict each other. Every version from 2 up to
 * the last one seen must have a maker (the workload's reads guarantee it: a transfer that made
 * version v read version v - 1 first). Then:
 *
 * - no transfer made two versions of an account (applied twice);
 * - a maker is a transfer of that account, and made the version after the one its read saw
 *   (its ifVersion), else the store let a write through on a stale version;
 * - replaying each account's makers from the starting balance gives every balance seen;
 * - a transfer applied to one of its accounts is applied to the other (atomic);
 * - an acknowledged transfer is applied; a cancelled one (409) or one never sent is not; a transfer
 *   asked again with the same token never answers otherwise than before;
 * - no balance is negative; every snapshot of all the accounts, and the final state, sum to the
 *   starting total.
 */
import type { AccountSeen, BankSetup, CompletedOp, Transfer } from '../history.js';
import { TOKEN_WINDOW_MS } from '../workloads/bank.js';
import type { BankReport, BankViolation } from './types.js';

type BankOp = Extract<CompletedOp, { workload: 'bank' }>;
type TransferOp = Extract<BankOp, { f: 'transfer' | 'resolve' }>;
type Outcome = 'applied' | 'not-applied' | 'unknown';

/** Violations of one kind listed at most (the count of the rest is in the last one). */
const LISTED_MAX = 20;

/**
 * `healedAtMs`: when the checks after the heal began (history time), if they did. A transfer
 * still unknown then must have answered when asked again, unless it is older than the token
 * window (a repeat past it could run it anew, so it was not asked).
 */
export function checkBank(ops: readonly CompletedOp[], options: { healedAtMs?: number } = {}): BankReport {
  const bankOps = ops.filter((op): op is BankOp => op.workload === 'bank');
  const setupOp = bankOps.find((op): op is Extract<BankOp, { f: 'setup' }> => op.f === 'setup');
  const violations = new Violations();
  const setup = setupOp?.value;
  if (setup === undefined) return emptyReport(bankOps.length > 0, violations);
  if (setupOp?.status !== 'ok') violations.add({ kind: 'setup', detail: 'the accounts were not created' });
  const initialTotal = setup.balance * setup.accounts.length;

  const transfers = transfersOf(bankOps, violations);
  const reads = bankOps.filter(
    (op): op is Extract<BankOp, { f: 'read' | 'get' }> =>
      (op.f === 'read' || op.f === 'get') && op.status === 'ok' && op.seen !== undefined,
  );
  const chains = new Map(setup.accounts.map((key) => [key, new Chain(key, setup)]));
  let snapshotsOfAll = 0;
  for (const read of reads) {
    const seen = read.seen ?? [];
    for (const item of seen) chains.get(item.key)?.observe(item, violations);
    if (setup.accounts.every((key) => seen.some((s) => s.key === key))) {
      snapshotsOfAll++;
      const sum = seen.reduce((n, s) => n + (s.value?.balance ?? 0), 0);
      if (sum !== initialTotal)
        violations.add({
          kind: 'snapshot-total',
          detail: `a snapshot by ${read.process} at ${read.completeMs} ms sums to ${sum}, not ${initialTotal}: ${seen.map((s) => `${s.key}@${s.version}=${s.value?.balance}`).join(' ')}`,
        });
    }
  }

  const appliedTo = new Map<string, Set<string>>();
  let finalTotal: number | null = 0;
  for (const chain of chains.values()) {
    const makers = chain.replay(transfers, violations);
    for (const id of makers) {
      const set = appliedTo.get(id) ?? new Set<string>();
      set.add(chain.key);
      appliedTo.set(id, set);
    }
    const last = chain.lastBalance();
    finalTotal = finalTotal === null || last === undefined ? null : finalTotal + last;
  }
  if (finalTotal !== null && finalTotal !== initialTotal)
    violations.add({ kind: 'total', detail: `the accounts end with ${finalTotal}, not ${initialTotal}` });

  let unknownApplied = 0;
  for (const [id, t] of transfers) {
    const onFrom = appliedTo.get(id)?.has(t.transfer.from) ?? false;
    const onTo = appliedTo.get(id)?.has(t.transfer.to) ?? false;
    if (onFrom !== onTo)
      violations.add({
        kind: 'partial',
        transfer: id,
        detail: `${id} applied to ${onFrom ? t.transfer.from : t.transfer.to} only`,
      });
    const applied = onFrom || onTo;
    if (t.final === 'applied' && !applied)
      violations.add({ kind: 'lost', transfer: id, detail: `${id} was acknowledged and is not applied` });
    if (t.final === 'not-applied' && applied)
      violations.add({
        kind: 'cancelled-applied',
        transfer: id,
        detail: `${id} was cancelled (${t.why}) and is applied`,
      });
    if (t.first === 'unknown' && applied) unknownApplied++;
  }

  const afterHeal = afterHealOf(bankOps, setup, transfers, options.healedAtMs);
  const all = [...transfers.values()];
  return {
    accounts: setup.accounts.length,
    initialTotal,
    finalTotal,
    transfers: {
      attempted: all.length,
      acknowledged: all.filter((t) => t.first === 'applied').length,
      notApplied: all.filter((t) => t.first === 'not-applied').length,
      unknown: all.filter((t) => t.first === 'unknown').length,
      unknownApplied,
      resolvedAfterHeal: all.filter((t) => t.first === 'unknown' && t.final !== 'unknown').length,
      applied: appliedTo.size,
      resent: all.filter((t) => t.tries > 1).length,
      resentCommitted: all.filter((t) => t.tries > 1 && t.first === 'applied').length,
    },
    reads: reads.length,
    snapshotsOfAll,
    violations: violations.list(),
    afterHeal,
  };
}

interface TransferState {
  readonly transfer: Transfer;
  /** When the worker sent it first (history time). */
  invokeMs: number;
  /** Requests the worker sent (more than 1: resent after an unknown outcome). */
  tries: number;
  /** What the worker's own requests said. */
  first: Outcome;
  /** With the answers to asking again after the heal. */
  final: Outcome;
  why: string;
}

/** Each transfer with what its requests answered; a token that answered both ways is a violation. */
function transfersOf(ops: readonly BankOp[], violations: Violations): Map<string, TransferState> {
  const transfers = new Map<string, TransferState>();
  for (const op of ops.filter((o): o is TransferOp => o.f === 'transfer' || o.f === 'resolve')) {
    const id = op.value.id;
    const outcome: Outcome =
      op.status === 'ok' ? 'applied' : op.status === 'fail' ? 'not-applied' : 'unknown';
    if (op.error?.includes('IDEMPOTENT_PARAMETER_MISMATCH') === true)
      violations.add({
        kind: 'token-mismatch',
        transfer: id,
        detail: `${id}: the same token with the same actions was refused as a mismatch`,
      });
    let state = transfers.get(id);
    if (state === undefined) {
      state = {
        transfer: op.value,
        invokeMs: op.invokeMs,
        tries: 0,
        first: 'unknown',
        final: 'unknown',
        why: '',
      };
      transfers.set(id, state);
    }
    if (op.f === 'transfer') {
      state.first = outcome;
      state.invokeMs = op.invokeMs;
      state.tries = op.tries ?? 1;
    }
    if (outcome === 'unknown') continue;
    if (state.final !== 'unknown' && state.final !== outcome)
      violations.add({
        kind: 'contradicting-outcomes',
        transfer: id,
        detail: `${id} answered ${state.final} and then ${outcome} (${op.error ?? 'committed'})`,
      });
    state.final = outcome;
    if (outcome === 'not-applied') state.why = op.reasons?.join(',') ?? op.error ?? 'not sent';
  }
  return transfers;
}

/** What the reads say of one account: the transfer that made each version, and the balance at it. */
class Chain {
  private readonly makers = new Map<number, string>();
  private readonly balances = new Map<number, number>();
  private top = 1;

  constructor(
    readonly key: string,
    private readonly setup: BankSetup,
  ) {
    this.balances.set(1, setup.balance);
  }

  observe(item: AccountSeen, violations: Violations): void {
    const { key, version, value } = item;
    if (!item.found || value === undefined) {
      violations.add({
        kind: 'bad-value',
        account: key,
        detail: `${key} read ${item.found ? 'with a value that is no account' : 'as absent'} at version ${version}`,
      });
      return;
    }
    this.top = Math.max(this.top, version);
    if (value.balance < 0)
      violations.add({
        kind: 'negative',
        account: key,
        detail: `${key} at version ${version}: ${value.balance}`,
      });
    const balance = this.balances.get(version);
    if (balance !== undefined && balance !== value.balance)
      violations.add({
        kind: 'conflicting-reads',
        account: key,
        detail: `${key} at version ${version} read with balances ${balance} and ${value.balance}`,
      });
    this.balances.set(version, value.balance);
    const ids = value.applied;
    if (ids.length > this.setup.window || (ids.length < this.setup.window && ids.length !== version - 1)) {
      violations.add({
        kind: 'list-length',
        account: key,
        detail: `${key} at version ${version} names ${ids.length} transfers (window ${this.setup.window}): a version made by no transfer, or a transfer that made none`,
      });
      return;
    }
    ids.forEach((id, i) => {
      const made = version - (ids.length - 1 - i);
      const known = this.makers.get(made);
      if (known !== undefined && known !== id)
        violations.add({
          kind: 'conflicting-reads',
          account: key,
          detail: `${key} version ${made} read as made by ${known} and by ${id}`,
        });
      else this.makers.set(made, id);
    });
  }

  /** The makers of versions 2..top in order, checked against the transfers and the balances seen. */
  replay(transfers: ReadonlyMap<string, TransferState>, violations: Violations): string[] {
    const { key } = this;
    const out: string[] = [];
    const seenAt = new Map<string, number>();
    const uncovered: number[] = [];
    let balance: number | undefined = this.setup.balance;
    for (let version = 2; version <= this.top; version++) {
      const id = this.makers.get(version);
      if (id === undefined) {
        uncovered.push(version);
        balance = undefined;
        continue;
      }
      const before = seenAt.get(id);
      if (before !== undefined)
        violations.add({
          kind: 'double-applied',
          account: key,
          transfer: id,
          detail: `${id} made versions ${before} and ${version} of ${key}`,
        });
      seenAt.set(id, version);
      out.push(id);
      const t = transfers.get(id)?.transfer;
      if (t === undefined || (t.from !== key && t.to !== key)) {
        violations.add({
          kind: 'phantom',
          account: key,
          transfer: id,
          detail: `version ${version} of ${key} was made by ${id}, no transfer of this account`,
        });
        balance = undefined;
        continue;
      }
      const readVersion = t.from === key ? t.fromVersion : t.toVersion;
      if (version !== readVersion + 1)
        violations.add({
          kind: 'stale-write',
          account: key,
          transfer: id,
          detail: `${id} read ${key} at version ${readVersion} (its ifVersion) and made version ${version}`,
        });
      if (balance !== undefined) balance += t.from === key ? -t.amount : t.amount;
      const seen = this.balances.get(version);
      if (balance !== undefined && seen !== undefined && seen !== balance)
        violations.add({
          kind: 'balance',
          account: key,
          detail: `${key} at version ${version} holds ${seen}; its transfers since the create add up to ${balance}`,
        });
      if (seen !== undefined) balance = seen;
    }
    if (uncovered.length > 0)
      violations.add({
        kind: 'uncovered',
        account: key,
        detail: `no read names the transfer that made version(s) ${uncovered.slice(0, 10).join(',')}${uncovered.length > 10 ? ',…' : ''} of ${key}`,
      });
    return out;
  }

  /** The balance at the highest version read. */
  lastBalance(): number | undefined {
    return this.balances.get(this.top);
  }
}

function afterHealOf(
  ops: readonly BankOp[],
  setup: BankSetup,
  transfers: ReadonlyMap<string, TransferState>,
  healedAtMs: number | undefined,
): BankReport['afterHeal'] {
  if (healedAtMs === undefined)
    return {
      checked: false,
      unreadable: [],
      conditionCheckCommitted: true,
      unresolved: [],
      finalSnapshot: true,
    };
  const late = ops.filter((op) => op.status === 'ok' && 'afterHeal' in op && op.afterHeal === true);
  const read = new Set(late.filter((op) => op.f === 'get').map((op) => op.key));
  return {
    checked: true,
    unreadable: setup.accounts.filter((key) => !read.has(key)),
    conditionCheckCommitted: ops.some((op) => op.f === 'check' && op.status === 'ok'),
    unresolved: [...transfers.values()]
      .filter((t) => t.final === 'unknown' && healedAtMs - t.invokeMs < TOKEN_WINDOW_MS)
      .map((t) => t.transfer.id),
    finalSnapshot: late.some((op) => op.f === 'read'),
  };
}

function emptyReport(ran: boolean, violations: Violations): BankReport {
  if (ran) violations.add({ kind: 'setup', detail: 'bank ops without a setup' });
  return {
    accounts: 0,
    initialTotal: 0,
    finalTotal: null,
    transfers: {
      attempted: 0,
      acknowledged: 0,
      notApplied: 0,
      unknown: 0,
      unknownApplied: 0,
      resolvedAfterHeal: 0,
      applied: 0,
      resent: 0,
      resentCommitted: 0,
    },
    reads: 0,
    snapshotsOfAll: 0,
    violations: violations.list(),
    afterHeal: {
      checked: false,
      unreadable: [],
      conditionCheckCommitted: true,
      unresolved: [],
      finalSnapshot: true,
    },
  };
}

/** Violations, at most LISTED_MAX of a kind listed; the rest counted. */
class Violations {
  private readonly items: BankViolation[] = [];
  private readonly more = new Map<BankViolation['kind'], number>();

  add(v: BankViolation): void {
    if (this.items.filter((i) => i.kind === v.kind).length < LISTED_MAX) this.items.push(v);
    else this.more.set(v.kind, (this.more.get(v.kind) ?? 0) + 1);
  }

  list(): BankViolation[] {
    return [
      ...this.items,
      ...[...this.more].map(([kind, n]) => ({ kind, detail: `… and ${n} more of this kind` })),
    ];
  }
}
