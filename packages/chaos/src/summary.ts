/** The summary printed at the end of a run: the numbers that must be zero first, then the rest. */
import type { BankReport, CheckReport, RegisterReport } from './checker/types.js';

export interface RunFacts {
  readonly seed: number;
  readonly durationS: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly nemesisFailures: readonly string[];
  readonly runDir: string;
}

/** Lists are cut to this many entries in the text (summary.json has them all). */
const SHOWN_MAX = 10;

export function formatSummary(report: CheckReport, facts: RunFacts): string {
  const { set, cart, lww, convergence, ops } = report;
  const must = (label: string, value: number | boolean, good: boolean): string =>
    `  ${good ? 'ok  ' : 'FAIL'}  ${label.padEnd(44)} ${String(value)}`;
  const faults = Object.entries(facts.faults)
    .map(([kind, count]) => `${kind} x${count}`)
    .join(', ');
  const lines = [
    `chaos run: seed ${facts.seed}, ${facts.durationS}s of faults: ${faults || 'none'}`,
    `ops: ${ops.total} (ok ${ops.ok}, fail ${ops.fail}, info ${ops.info})`,
    '',
    'must hold:',
    must('set: acknowledged adds lost', set.lost.length, set.lost.length === 0),
    must('set: elements nobody added', set.phantom.length, set.phantom.length === 0),
    must('cart: acknowledged adds lost', cart.lost.length, cart.lost.length === 0),
    must('cart: removed items that came back', cart.resurrected.length, cart.resurrected.length === 0),
    must('cart: items nobody added', cart.phantom.length, cart.phantom.length === 0),
    must('lww: acknowledged writes lost (not replaced)', lww.lost.length, lww.lost.length === 0),
    must('lww: replaced or deleted versions back', lww.resurrected.length, lww.resurrected.length === 0),
    must('lww: values nobody wrote', lww.phantom.length, lww.phantom.length === 0),
    must('ring settled after healing', convergence.ringSettled, convergence.ringSettled),
    must(
      'keys whose replicas did not converge',
      convergence.notConverged.length,
      convergence.notConverged.length === 0,
    ),
    ...strongMustLines(report.register, report.bank, must),
    '',
    'for information:',
    `  set: ${set.acknowledged} acknowledged adds on ${set.keys} keys; ${set.indeterminate} unknown, ${set.indeterminatePresent} of them kept`,
    `  cart: ${cart.addsAcknowledged} acknowledged adds, ${cart.removesAcknowledged} acknowledged removes on ${cart.keys} keys`,
    `  lww: ${lww.writesAcknowledged} acknowledged writes on ${lww.keys} keys; ${lww.overwritten} overwritten (allowed), ${lww.olderTimestampWon} replaced by a causally later write with an older timestamp (allowed)`,
    `  convergence: ${convergence.keys} keys, the slowest agreed ${(convergence.slowestMs / 1000).toFixed(1)}s after the heal`,
    ...strongInfoLines(report.register, report.bank),
    ...(report.weakAtRisk > 0
      ? [
          `  ${report.weakAtRisk} writes acknowledged with W=1 by a node wiped later, or not a replica, counted as unknown`,
        ]
      : []),
  ];
  if (facts.nemesisFailures.length > 0)
    lines.push(`  faults that could not start: ${facts.nemesisFailures.slice(0, SHOWN_MAX).join('; ')}`);
  lines.push('', ...byFaultLines(report));
  const violations = [
    ...set.lost.map((r) => `set lost ${r.key} ${r.value} (${r.process}, acked at ${r.completeMs} ms)`),
    ...cart.lost.map((r) => `cart lost ${r.key} ${r.value} (${r.process}, acked at ${r.completeMs} ms)`),
    ...cart.resurrected.map(
      (r) => `cart resurrected ${r.key} ${r.value} (${r.process}, removed at ${r.completeMs} ms)`,
    ),
    ...lww.lost.map((r) => `lww lost ${r.key} ${r.value.id} (acked at ${r.completeMs} ms)`),
    ...lww.resurrected.map(
      (r) =>
        `lww resurrected ${r.key} ${r.id} (${r.f === 'delete' ? 'deleted' : 'replaced'} by ${r.by.process} at ${r.by.completeMs} ms)`,
    ),
    ...convergence.notConverged.map((key) => `not converged: ${key}`),
    ...report.register.perKey
      .filter((k) => !k.linearizable)
      .map(
        (k) =>
          `register ${k.key} ${k.inconclusive ? 'undecided' : 'not linearizable'}:\n    ${(k.explanation ?? '').split('\n').join('\n    ')}`,
      ),
    ...report.register.unreadableAfterHeal.map((key) => `register ${key} unreadable after the heal`),
    ...report.bank.violations.map((v) => `bank ${v.kind}: ${v.detail}`),
  ];
  if (violations.length > 0) {
    lines.push('', 'violations:', ...violations.slice(0, SHOWN_MAX).map((v) => `  ${v}`));
    if (violations.length > SHOWN_MAX)
      lines.push(`  … and ${violations.length - SHOWN_MAX} more (summary.json)`);
  }
  lines.push(
    '',
    `${report.valid ? 'PASS' : 'FAIL'}  history, summary.json and timeline.html in ${facts.runDir}`,
  );
  return `${lines.join('\n')}\n`;
}

type Must = (label: string, value: number | boolean, good: boolean) => string;

/** The strong workloads' musts, when they ran. */
function strongMustLines(register: RegisterReport, bank: BankReport, must: Must): string[] {
  const lines: string[] = [];
  if (register.keys > 0) {
    lines.push(
      must(
        'register: keys not linearizable',
        register.notLinearizable.length,
        register.notLinearizable.length === 0,
      ),
      must(
        'register: keys undecided (search budget)',
        register.inconclusive.length,
        register.inconclusive.length === 0,
      ),
      must(
        'register: keys unreadable after healing',
        register.unreadableAfterHeal.length,
        register.unreadableAfterHeal.length === 0,
      ),
    );
  }
  if (bank.accounts > 0) {
    const { afterHeal } = bank;
    lines.push(
      must('bank: broken promises (below)', bank.violations.length, bank.violations.length === 0),
      must(
        'bank: accounts unreadable after healing',
        afterHeal.unreadable.length,
        afterHeal.unreadable.length === 0,
      ),
      must(
        'bank: transfers still unknown after healing',
        afterHeal.unresolved.length,
        afterHeal.unresolved.length === 0,
      ),
      must(
        'bank: conditionCheck of all accounts committed',
        afterHeal.conditionCheckCommitted,
        afterHeal.conditionCheckCommitted,
      ),
      must('bank: snapshot of all accounts after healing', afterHeal.finalSnapshot, afterHeal.finalSnapshot),
    );
  }
  return lines;
}

function strongInfoLines(register: RegisterReport, bank: BankReport): string[] {
  const lines: string[] = [];
  if (register.keys > 0) {
    const { read, write, cas, delete: del } = register.ops;
    lines.push(
      `  register: ${read + write + cas + del} ops on ${register.keys} keys (read ${read}, write ${write}, cas ${cas}, delete ${del}); ${register.acknowledged} acknowledged, ${register.casRefused} cas refused (412), ${register.unknown} unknown`,
      ...register.perKey.map(
        (k) =>
          `    ${k.key}: ${k.ops} ops checked, ${k.unknown} unknown, ${k.casRefused} cas refused: ${k.linearizable ? 'linearizable' : k.inconclusive ? 'UNDECIDED' : 'NOT LINEARIZABLE'}`,
      ),
    );
  }
  if (bank.accounts > 0) {
    const t = bank.transfers;
    lines.push(
      `  bank: ${bank.accounts} accounts, ${bank.initialTotal} at the start, ${bank.finalTotal ?? '?'} at the end; ${t.attempted} transfers: ${t.acknowledged} committed, ${t.notApplied} cancelled or not sent, ${t.unknown} unknown (${t.unknownApplied} of them applied, ${t.resolvedAfterHeal} answered when asked again, during the run or after healing); ${t.applied} applied in all`,
      `  bank: ${t.resent} transfers sent again with the same token after an unknown outcome (${t.resentCommitted} of them committed); ${bank.reads} reads, ${bank.snapshotsOfAll} of them snapshots of every account`,
    );
  }
  return lines;
}

/**
 * Per fault kind: the violations on keys its windows acted on while they were in use (one
 * violation may count under several kinds; checker/faults.ts).
 */
function byFaultLines(report: CheckReport): string[] {
  const { kinds, unattributed } = report.byFault;
  const rows = Object.entries(kinds).map(
    ([kind, t]) =>
      `  ${kind.padEnd(12)} x${String(t.windows).padEnd(3)} lost ${String(t.lost).padStart(4)}   resurrected ${String(t.resurrected).padStart(4)}`,
  );
  if (unattributed.lost + unattributed.resurrected > 0)
    rows.push(
      `  ${'(no fault)'.padEnd(16)} lost ${String(unattributed.lost).padStart(4)}   resurrected ${String(unattributed.resurrected).padStart(4)}`,
    );
  return ['by fault (acknowledged adds and writes lost, removals and deletes undone):', ...rows];
}
