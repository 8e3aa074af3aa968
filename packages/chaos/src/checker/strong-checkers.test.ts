import { describe, expect, it } from 'vitest';
import type {
  AccountSeen,
  AccountValue,
  BankSetup,
  Completion,
  HistoryEvent,
  OpEvent,
  RegisterOut,
  Transfer,
} from '../history.js';
import { completedOps } from '../history.js';
import { checkBank } from './bank.js';
import { check } from './index.js';
import { checkRegisters } from './registers.js';
import type { BankViolation } from './types.js';

const SETUP: BankSetup = { accounts: ['accounts/a0', 'accounts/a1', 'accounts/a2'], balance: 100, window: 4 };

interface Step {
  readonly id: string;
  readonly from: number;
  readonly to: number;
  readonly amount: number;
  /** How the worker saw it end. */
  readonly status: Completion;
  /** How many times the (simulated) store applied it to each account: [from, to]. */
  readonly applied: readonly [number, number];
}

/**
 * A bank history as the workload records it: the setup, then per transfer a read of both accounts
 * and the transfer; the store's accounts evolve as `applied` says (a correct store applies a
 * transfer once to both, or to neither). After the heal: a get of each account, the conditionCheck
 * and a snapshot of all. `tamper` edits the final snapshot.
 */
function bankHistory(
  steps: readonly Step[],
  tamper?: (seen: AccountSeen[]) => AccountSeen[],
): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  let t = 0;
  const op = (
    fields: Record<string, unknown>,
    type: Completion,
    extra: Record<string, unknown> = {},
  ): void => {
    const base = { kind: 'op', process: 'bank-0', workload: 'bank', ...fields };
    events.push({ ...base, type: 'invoke', atMs: t++ } as OpEvent);
    events.push({ ...base, ...extra, type, atMs: t++ } as OpEvent);
  };
  const accounts = SETUP.accounts.map(() => ({
    version: 1,
    value: { balance: SETUP.balance, applied: [] as string[] } as AccountValue,
  }));
  const seen = (i: number): AccountSeen => {
    const a = accounts[i]!;
    return { key: SETUP.accounts[i]!, found: true, version: a.version, value: a.value };
  };
  op({ f: 'setup', key: 'accounts', value: SETUP }, 'ok');
  for (const s of steps) {
    const from = SETUP.accounts[s.from]!;
    const to = SETUP.accounts[s.to]!;
    op({ f: 'read', key: 'accounts', value: [from, to] }, 'ok', { seen: [seen(s.from), seen(s.to)] });
    const transfer: Transfer = {
      id: s.id,
      from,
      to,
      amount: s.amount,
      fromVersion: accounts[s.from]!.version,
      toVersion: accounts[s.to]!.version,
    };
    (
      [
        [s.from, -s.amount, s.applied[0]],
        [s.to, s.amount, s.applied[1]],
      ] as const
    ).forEach(([i, delta, times]) => {
      for (let n = 0; n < times; n++) {
        const a = accounts[i]!;
        a.version++;
        a.value = {
          balance: a.value.balance + delta,
          applied: [...a.value.applied, s.id].slice(-SETUP.window),
        };
      }
    });
    const reasons = s.status === 'fail' ? { reasons: ['ConditionalCheckFailed@2', 'None'] } : {};
    op({ f: 'transfer', key: `${from}>${to}`, value: transfer }, s.status, reasons);
  }
  events.push({ kind: 'phase', atMs: t++, phase: 'strong-final' });
  SETUP.accounts.forEach((key, i) => {
    op({ f: 'get', key, value: [key], afterHeal: true }, 'ok', { seen: [seen(i)] });
  });
  op({ f: 'check', key: 'accounts', value: SETUP.accounts }, 'ok');
  const all = SETUP.accounts.map((_, i) => seen(i));
  op({ f: 'read', key: 'accounts', value: SETUP.accounts, afterHeal: true }, 'ok', {
    seen: tamper === undefined ? all : tamper(all),
  });
  return events;
}

const ok = (id: string, from: number, to: number, amount = 10): Step => ({
  id,
  from,
  to,
  amount,
  status: 'ok',
  applied: [1, 1],
});

function kinds(events: HistoryEvent[]): BankViolation['kind'][] {
  return [
    ...new Set(checkBank(completedOps(events), { healedAtMs: 1_000 }).violations.map((v) => v.kind)),
  ].sort();
}

describe('the bank checker', () => {
  // Enough transfers that the lists (window 4) roll over: the makers of old versions come from the reads.
  const clean: Step[] = [
    ok('t1', 0, 1),
    ok('t2', 1, 2, 30),
    { id: 't3', from: 2, to: 0, amount: 5, status: 'fail', applied: [0, 0] },
    { id: 't4', from: 0, to: 2, amount: 7, status: 'info', applied: [1, 1] },
    { id: 't5', from: 1, to: 0, amount: 3, status: 'info', applied: [0, 0] },
    ok('t6', 2, 1, 1),
    ok('t7', 0, 1, 2),
    ok('t8', 0, 2, 4),
    ok('t9', 1, 0, 6),
  ];

  it('passes a history where every transfer applied once or not at all', () => {
    const report = checkBank(completedOps(bankHistory(clean)), { healedAtMs: 1_000 });
    expect(report.violations).toEqual([]);
    expect(report.finalTotal).toBe(300);
    expect(report.transfers).toMatchObject({
      attempted: 9,
      acknowledged: 6,
      notApplied: 1,
      unknown: 2,
      unknownApplied: 1,
    });
    expect(report.transfers.applied).toBe(7);
    expect(report.afterHeal).toMatchObject({ unreadable: [], unresolved: ['t4', 't5'], finalSnapshot: true });
    // Past the token's window they could not be asked again safely: not counted as pending.
    const late = checkBank(completedOps(bankHistory(clean)), { healedAtMs: 10 * 60_000 });
    expect(late.afterHeal.unresolved).toEqual([]);
    // An unknown transfer left unknown after the heal is "pending": the run is not valid.
    expect(check(bankHistory(clean)).valid).toBe(false);
    const resolved = clean.map((s) =>
      s.status === 'info' ? { ...s, status: s.applied[0] > 0 ? 'ok' : 'fail' } : s,
    );
    expect(check(bankHistory(resolved as Step[])).valid).toBe(true);
  });

  it('finds a transfer applied twice to an account', () => {
    const twice = clean.map((s) => (s.id === 't2' ? { ...s, applied: [2, 1] as const } : s));
    expect(kinds(bankHistory(twice))).toEqual(expect.arrayContaining(['double-applied', 'total']));
  });

  it('finds a changed total, in a snapshot and in the final state', () => {
    const richer = (seen: AccountSeen[]): AccountSeen[] =>
      seen.map((s, i) =>
        i === 0 && s.value !== undefined ? { ...s, value: { ...s.value, balance: s.value.balance + 1 } } : s,
      );
    expect(kinds(bankHistory(clean, richer))).toEqual(
      expect.arrayContaining(['conflicting-reads', 'snapshot-total', 'total']),
    );
  });

  it('finds an acknowledged transfer not applied, a cancelled one applied, and one applied to one account only', () => {
    const lost = clean.map((s) => (s.id === 't6' ? { ...s, applied: [0, 0] as const } : s));
    expect(kinds(bankHistory(lost))).toContain('lost');
    const cancelledApplied = clean.map((s) => (s.id === 't3' ? { ...s, applied: [1, 1] as const } : s));
    expect(kinds(bankHistory(cancelledApplied))).toContain('cancelled-applied');
    const partial = clean.map((s) => (s.id === 't7' ? { ...s, applied: [1, 0] as const } : s));
    expect(kinds(bankHistory(partial))).toEqual(expect.arrayContaining(['partial', 'total']));
  });

  it('finds a write on a stale version (a lost update) and a version no read explains', () => {
    const events = bankHistory(clean);
    // t7 claims it read a0 one version earlier than the version before the one it made.
    const stale = events.map((e) =>
      e.kind === 'op' && e.workload === 'bank' && e.f === 'transfer' && e.value.id === 't7'
        ? { ...e, value: { ...e.value, fromVersion: e.value.fromVersion - 1 } }
        : e,
    );
    expect(kinds(stale)).toContain('stale-write');
    // Drop every read of a0 but the final ones: its early versions are named by no read.
    const blind = events.filter(
      (e) =>
        !(
          e.kind === 'op' &&
          e.workload === 'bank' &&
          e.f === 'read' &&
          e.afterHeal !== true &&
          e.value.includes('accounts/a0')
        ),
    );
    expect(kinds(blind)).toContain('uncovered');
  });

  it('finds a token answered both ways, and a mismatch of a token with its own actions', () => {
    const known = clean.map((s) =>
      s.status === 'info' ? { ...s, status: s.applied[0] > 0 ? 'ok' : 'fail' } : s,
    );
    const events = bankHistory(known as Step[]);
    const t4 = events.find(
      (e) => e.kind === 'op' && e.workload === 'bank' && e.f === 'transfer' && e.value.id === 't4',
    );
    if (t4?.kind !== 'op' || t4.workload !== 'bank' || t4.f !== 'transfer') throw new Error('no t4');
    // Asked again after the heal, the committed t4 answers cancelled.
    const resolve = { ...t4, f: 'resolve' as const };
    const asked = [
      ...events,
      { ...resolve, type: 'invoke' as const, atMs: 900 },
      { ...resolve, type: 'fail' as const, atMs: 901 },
    ];
    expect(kinds(asked)).toEqual(['cancelled-applied', 'contradicting-outcomes']);
    const mismatch = [
      ...events,
      { ...resolve, type: 'invoke' as const, atMs: 900 },
      { ...resolve, type: 'info' as const, atMs: 901, error: 'n1: 400 IDEMPOTENT_PARAMETER_MISMATCH' },
    ];
    expect(kinds(mismatch)).toEqual(['token-mismatch']);
  });
});

describe('the register checker', () => {
  const reg = (
    process: string,
    f: 'read' | 'write' | 'cas' | 'delete',
    fromMs: number,
    toMs: number,
    type: Completion,
    fields: { value?: string; expect?: number; out?: RegisterOut } = {},
  ): HistoryEvent[] => {
    const { out, ...rest } = fields;
    const base = { kind: 'op', process, workload: 'register', f, key: 'registers/k', ...rest } as const;
    return [
      { ...base, type: 'invoke', atMs: fromMs },
      { ...base, type, atMs: toMs, ...(out === undefined ? {} : { out }) },
    ];
  };

  it('passes a linearizable history with a refused cas and a write of unknown outcome', () => {
    const events = [
      ...reg('p0', 'write', 0, 10, 'ok', { value: 'a', out: { ok: true, version: 1 } }),
      ...reg('p1', 'write', 12, 20, 'info', { value: 'b' }),
      ...reg('p0', 'cas', 21, 30, 'fail', { value: 'c', expect: 1, out: { ok: false, version: 2 } }),
      ...reg('p2', 'read', 31, 40, 'ok', { out: { ok: true, value: 'b', version: 2 } }),
      ...reg('p2', 'delete', 41, 50, 'ok', { out: { ok: true, version: 3 } }),
      ...reg('p0', 'read', 51, 60, 'ok', { out: { ok: true, version: 3 } }),
    ];
    const report = checkRegisters(completedOps(events));
    expect(report.notLinearizable).toEqual([]);
    expect(report.perKey[0]).toMatchObject({ ops: 6, unknown: 1, casRefused: 1, linearizable: true });
  });

  it('fails a cas answered 412 whose value a read then saw (the doubtful round retried)', () => {
    // Seen in a chaos run (seed 1, before the fix): the cas's round was interrupted, a concurrent
    // read chose its value, and the retry found the version it had made itself.
    const events = [
      ...reg('p1', 'write', 0, 10, 'ok', { value: 'v32', out: { ok: true, version: 1 } }),
      ...reg('p2', 'cas', 12, 60, 'fail', { value: 'v34', expect: 1, out: { ok: false, version: 2 } }),
      ...reg('p0', 'read', 20, 50, 'ok', { out: { ok: true, value: 'v34', version: 2 } }),
    ];
    const report = checkRegisters(completedOps(events));
    expect(report.notLinearizable).toEqual(['registers/k']);
    expect(report.perKey[0]?.explanation).toContain('could not place');
  });

  it('fails a blind write applied twice (two versions for one write)', () => {
    const events = [
      ...reg('p0', 'write', 0, 50, 'ok', { value: 'a', out: { ok: true, version: 3 } }),
      ...reg('p1', 'read', 5, 10, 'ok', { out: { ok: true, value: 'a', version: 1 } }),
      ...reg('p1', 'write', 11, 20, 'ok', { value: 'b', out: { ok: true, version: 2 } }),
    ];
    expect(checkRegisters(completedOps(events)).notLinearizable).toEqual(['registers/k']);
  });

  it('reports keys no read after the heal could read', () => {
    const events: HistoryEvent[] = [
      ...reg('p0', 'write', 0, 10, 'ok', { value: 'a', out: { ok: true, version: 1 } }),
      { kind: 'phase', atMs: 11, phase: 'strong-final' },
    ];
    expect(check(events).register.unreadableAfterHeal).toEqual(['registers/k']);
    expect(check(events).valid).toBe(false);
  });
});
