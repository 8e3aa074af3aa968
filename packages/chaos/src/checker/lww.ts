/**
 * Last-writer-wins registers written by read-then-write with the read's context. What the
 * documented semantics allow: an acknowledged write may be overwritten, by a causally later write
 * (whatever its timestamp: a writer whose clock runs behind still replaces what it read) or by a
 * concurrent one with a later timestamp when a reader resolves the siblings. What they do not
 * allow: a value nobody wrote; a version an acknowledged write or delete read and replaced coming
 * back; an acknowledged version vanishing though no write or delete read it; replicas that
 * disagree after healing (checked apart).
 */
import { resolvers } from '@tessera/client';
import type { CompletedOp, LwwValue } from '../history.js';
import { ref } from './sets.js';
import type { LwwReport, OpRef } from './types.js';

type LwwOp = Extract<CompletedOp, { workload: 'lww' }>;

export function checkLww(
  ops: readonly CompletedOp[],
  finals: ReadonlyMap<string, readonly LwwValue[]>,
): LwwReport {
  const lwwOps = ops.filter((op): op is LwwOp => op.workload === 'lww');
  const written = new Set<string>();
  /** Each replaced version and the first acknowledged op that read and replaced it. */
  const replacedByOk = new Map<string, LwwOp>();
  const maybeReplaced = new Set<string>();
  for (const op of lwwOps) {
    if (op.f === 'write') written.add(op.value.id);
    // A 'fail' is a write surely not applied: it replaced nothing.
    if (op.status === 'fail') continue;
    for (const id of op.observed ?? []) {
      maybeReplaced.add(id);
      if (op.status === 'ok' && !replacedByOk.has(id)) replacedByOk.set(id, op);
    }
  }
  const finalIds = new Map([...finals].map(([key, values]) => [key, new Set(values.map((v) => v.id))]));
  const winners = new Map([...finals].map(([key, values]) => [key, lwwWinner(values)]));
  const lost: OpRef<LwwValue>[] = [];
  let writesAcknowledged = 0;
  let overwritten = 0;
  let olderTimestampWon = 0;
  for (const op of lwwOps) {
    if (op.f !== 'write' || op.status !== 'ok') continue;
    writesAcknowledged++;
    const id = op.value.id;
    const inFinal = finalIds.get(op.key)?.has(id) ?? false;
    if (!inFinal && !maybeReplaced.has(id)) lost.push(ref(op));
    const winner = winners.get(op.key);
    if (winner?.id !== id) overwritten++;
    if (winner !== undefined && winner.id !== id && op.value.ts > winner.ts && replacedByOk.has(id))
      olderTimestampWon++;
  }
  const resurrected: LwwReport['resurrected'] = [];
  const phantom: LwwReport['phantom'] = [];
  for (const [key, ids] of finalIds) {
    for (const id of ids) {
      if (!written.has(id)) phantom.push({ key, id });
      const by = replacedByOk.get(id);
      if (by !== undefined) resurrected.push({ key, id, f: by.f, by: ref(by) });
    }
  }
  return {
    keys: finals.size,
    writesAcknowledged,
    lost,
    resurrected,
    phantom,
    overwritten,
    olderTimestampWon,
  };
}

const byWriterClock = resolvers.lww<LwwValue>({ timestamp: (v) => v.ts });

/** The value a reader resolving with `resolvers.lww` on the writer's timestamp gets. */
export function lwwWinner(values: readonly LwwValue[]): LwwValue | undefined {
  if (values.length === 0) return undefined;
  return byWriterClock(
    [...values],
    values.map((value) => ({ value, lastModified: new Date(0) })),
  );
}
