/**
 * Strong registers: each key's history must be linearizable (checkRegisterHistory, one key at a
 * time). The ops as the checker takes them: an acknowledged op with its output; a compare-and-set
 * refused with a 412 with its output (it did not apply, and met that version); a write, cas or
 * delete with no answer as one that may have applied at any time after its call; a read with no
 * answer, and any op that surely failed, left out (they change nothing).
 */

import { checkRegisterHistory, type Operation, type RegisterInput, type RegisterOutput } from '@tessera/core';
import type { CompletedOp, RegisterOut } from '../history.js';
import type { RegisterKeyReport, RegisterReport } from './types.js';

type RegisterOp = Extract<CompletedOp, { workload: 'register' }>;
type KeyedOperation = Operation<RegisterInput, RegisterOutput> & { key: string };

export function checkRegisters(
  ops: readonly CompletedOp[],
  options: { healed?: boolean; stepsMax?: number } = {},
): RegisterReport {
  const registerOps = ops.filter((op): op is RegisterOp => op.workload === 'register');
  const processes = new Map<string, number>();
  const processId = (name: string): number => {
    let id = processes.get(name);
    if (id === undefined) {
      id = processes.size;
      processes.set(name, id);
    }
    return id;
  };
  const history: KeyedOperation[] = [];
  const counts = { read: 0, write: 0, cas: 0, delete: 0 };
  for (const op of registerOps) {
    counts[op.f]++;
    const operation = toOperation(op, processId(op.process));
    if (operation !== undefined) history.push(operation);
  }
  const results = checkRegisterHistory(
    history,
    options.stepsMax === undefined ? {} : { stepsMax: options.stepsMax },
  );
  const perKey: RegisterKeyReport[] = [];
  for (const [key, result] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    const mine = history.filter((op) => op.key === key);
    perKey.push({
      key,
      ops: mine.length,
      ok: mine.filter((op) => op.output?.ok === true).length,
      casRefused: mine.filter((op) => op.output?.ok === false).length,
      unknown: mine.filter((op) => op.returnMs === undefined).length,
      linearizable: result.ok,
      inconclusive: result.unknown === true,
      ...(result.explanation === undefined ? {} : { explanation: result.explanation }),
    });
  }
  const readable = new Set(
    registerOps.filter((op) => op.afterHeal === true && op.status === 'ok').map((op) => op.key),
  );
  const keys = [...new Set(registerOps.map((op) => op.key))];
  return {
    keys: perKey.length,
    ops: counts,
    acknowledged: registerOps.filter((op) => op.status === 'ok').length,
    casRefused: perKey.reduce((n, k) => n + k.casRefused, 0),
    unknown: perKey.reduce((n, k) => n + k.unknown, 0),
    perKey,
    notLinearizable: perKey.filter((k) => !k.linearizable && !k.inconclusive).map((k) => k.key),
    inconclusive: perKey.filter((k) => k.inconclusive).map((k) => k.key),
    unreadableAfterHeal: options.healed === true ? keys.filter((key) => !readable.has(key)).sort() : [],
  };
}

function toOperation(op: RegisterOp, process: number): KeyedOperation | undefined {
  const input = inputOf(op);
  if (input === undefined) return undefined;
  const base = { key: op.key, process, input, callMs: op.invokeMs };
  if (op.status === 'info') {
    // A read with no answer changes nothing; a write with none may have applied.
    return op.f === 'read' ? undefined : { ...base, returnMs: undefined, output: undefined };
  }
  if (op.status === 'fail' && op.out === undefined) return undefined;
  // An acknowledged op without an output (never recorded so) would match any output.
  return { ...base, returnMs: op.completeMs, output: outputOf(op.out) };
}

function inputOf(op: RegisterOp): RegisterInput | undefined {
  switch (op.f) {
    case 'read':
      return { f: 'read' };
    case 'delete':
      return { f: 'delete' };
    case 'write':
      return op.value === undefined ? undefined : { f: 'write', value: op.value };
    case 'cas':
      return op.value === undefined || op.expect === undefined
        ? undefined
        : { f: 'cas', expectVersion: op.expect, value: op.value };
  }
}

function outputOf(out: RegisterOut | undefined): RegisterOutput | undefined {
  if (out === undefined) return undefined;
  if (!out.ok) return out.version === undefined ? { ok: false } : { ok: false, version: out.version };
  return out.value === undefined
    ? { ok: true, version: out.version }
    : { ok: true, value: out.value, version: out.version };
}
