/**
 * Jepsen's set test on Riak: clients add unique integers to sets by read-modify-write with a
 * union merge. Every acknowledged add must be in the final set; nothing nobody added may be.
 */
import type { CompletedOp } from '../history.js';
import type { OpRef, SetReport } from './types.js';

type SetOp = Extract<CompletedOp, { workload: 'set' }>;

export function checkSets(
  ops: readonly CompletedOp[],
  finals: ReadonlyMap<string, readonly number[]>,
): SetReport {
  const adds = ops.filter((op): op is SetOp => op.workload === 'set');
  const present = new Map([...finals].map(([key, values]) => [key, new Set(values)]));
  const tried = new Map<string, Set<number>>();
  const lost: OpRef<number>[] = [];
  let acknowledged = 0;
  let indeterminate = 0;
  let indeterminatePresent = 0;
  for (const op of adds) {
    const keyTried = tried.get(op.key) ?? new Set<number>();
    tried.set(op.key, keyTried);
    keyTried.add(op.value);
    const inFinal = present.get(op.key)?.has(op.value) ?? false;
    if (op.status === 'ok') {
      acknowledged++;
      if (!inFinal) lost.push(ref(op));
    } else {
      indeterminate++;
      if (inFinal) indeterminatePresent++;
    }
  }
  const phantom: SetReport['phantom'] = [];
  for (const [key, values] of present)
    for (const value of values) if (!(tried.get(key)?.has(value) ?? false)) phantom.push({ key, value });
  return { keys: finals.size, acknowledged, lost, indeterminate, indeterminatePresent, phantom };
}

export function ref<V>(op: {
  key: string;
  value: V;
  process: string;
  invokeMs: number;
  completeMs: number;
}): OpRef<V> {
  return {
    key: op.key,
    value: op.value,
    process: op.process,
    invokeMs: op.invokeMs,
    completeMs: op.completeMs,
  };
}
